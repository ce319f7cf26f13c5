import { LRUCache } from 'lru-cache';
import type { Answer } from '@relay/jobs';
import type { Presenter } from './answer.js';
import { JsonText } from './json-text.js';

interface Entry {
  accountId: string;
  answer: Extract<Answer, { kind: 'json' }> & { body: JsonText };
}

/**
 * Finished answers kept in memory for repeated GET /v1/jobs/{id} reads: a b64_json answer of
 * 15 images is megabytes read back from the store and encoded, and a finished job's answer
 * never changes. Bounded by bytes; the least recently read go first. Only JSON answers are
 * kept: files are streamed from the store as they are.
 */
export function createAnswerCache(maxBytes: number) {
  const cache =
    maxBytes > 0
      ? new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (e) => Math.max(1, e.answer.body.text.length), ttl: 10 * 60_000 })
      : undefined;
  return {
    /** The presenter for one job's answer, served from the cache when this account read it before. */
    presenter(key: string, accountId: string, present: Presenter): Presenter {
      return async (job, result) => {
        const hit = cache?.get(key);
        if (hit && hit.accountId === accountId) return hit.answer;
        const presented = await present(job, result);
        if (presented.kind !== 'json') return presented;
        const answer = { ...presented, body: new JsonText(JSON.stringify(presented.body)) };
        if (cache && answer.body.text.length <= maxBytes) cache.set(key, { accountId, answer });
        return answer;
      };
    },
  };
}

export type AnswerCache = ReturnType<typeof createAnswerCache>;
