import { LRUCache } from 'lru-cache';
import type { Presented, Presenter } from './answer.js';

/** A body already serialised: sent as it is, not stringified again. */
export class JsonText {
  constructor(readonly text: string) {}
}

interface Entry {
  accountId: string;
  answer: Presented & { body: JsonText };
}

/**
 * Finished answers kept in memory for repeated GET /v1/jobs/{id} reads: a b64_json answer of
 * 15 images is megabytes read back from the store and encoded, and a finished job's answer
 * never changes. Bounded by bytes; the least recently read go first.
 */
export function createAnswerCache(maxBytes: number) {
  const cache =
    maxBytes > 0
      ? new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (e) => Math.max(1, e.answer.body.text.length), ttl: 10 * 60_000 })
      : undefined;
  return {
    /** The presenter for one job's answer, served from the cache when this account read it before. */
    presenter(key: string, accountId: string, present: Presenter<unknown>): Presenter<unknown> {
      return async (job, result) => {
        const hit = cache?.get(key);
        if (hit && hit.accountId === accountId) return hit.answer;
        const { body, headers } = await present(job, result);
        const answer = { body: new JsonText(JSON.stringify(body)), ...(headers ? { headers } : {}) };
        if (cache && answer.body.text.length <= maxBytes) cache.set(key, { accountId, answer });
        return answer;
      };
    },
  };
}

export type AnswerCache = ReturnType<typeof createAnswerCache>;
