import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '@relay/core';
import { inboxKey, WAITER_SET_TTL_SECONDS, waiterSetKey, type Notice, type NoticeType } from '@relay/life';

/** The inbox lives while its process does: refreshed well within this, gone soon after a crash. */
const TTL_MS = 60_000;
const REFRESH_MS = 15_000;
/** Notices read per round trip: a burst of completions comes in bounded pieces. */
const READ_COUNT = 500;
/** Read notices are trimmed away once this many piled up (or at the next refresh): not one round trip per read. */
const TRIM_EVERY = 1_000;
const BLOCK_MS = 5_000;

/**
 * This api process's inbox: the notices of the jobs it waits for, and only those (@relay/life's notices).
 * One blocking read at a time on a connection of its own; each piece read is handed on, then
 * trimmed away. A Redis restart loses the inbox: it is made again at the next refresh, and waits
 * that missed a notice end at their budget and read the job's state.
 */
export function createInbox(reader: Redis, writer: Redis, prefix: string, log: Logger) {
  const key = inboxKey(prefix, `${process.pid}-${randomBytes(6).toString('hex')}`);
  const listeners = new Set<(notice: Notice) => void>();
  /** Notices this process received, by type (a metric: it must only ever hear of its own jobs). */
  const received: Record<NoticeType, number> = { completed: 0, failed: 0, removed: 0, partial: 0, started: 0 };
  let stopped = false;
  let untrimmed = 0;
  // from the start: nothing in it is old news (it is this process's own, trimmed as it is read)
  let last = '0';

  const ensure = async () => {
    // a stream exists only with an entry in it: the first one says whose inbox this is
    if ((await writer.pexpire(key, TTL_MS)) === 0) {
      await writer.multi().xadd(key, '*', 't', 'hello', 'j', '', 'd', '').pexpire(key, TTL_MS).exec();
    }
  };

  /** What was read is done with: the inbox keeps only what is unread (notices are also capped by length when sent). */
  const trim = async () => {
    if (untrimmed === 0 || last === '0') return;
    untrimmed = 0;
    const [ms, seq] = last.split('-');
    await writer.xtrim(key, 'MINID', `${ms}-${Number(seq) + 1}`).catch((err: Error) => log.warn({ err: err.message }, 'inbox trim failed'));
  };

  const read = async () => {
    while (!stopped) {
      let reply: Array<[string, Array<[string, string[]]>]> | null;
      try {
        reply = await reader.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', key, last);
      } catch (error) {
        if (stopped) return;
        log.warn({ err: (error as Error).message }, 'inbox read failed; reading again');
        await ensure().catch(() => undefined);
        continue;
      }
      const entries = reply?.[0]?.[1] ?? [];
      for (const [id, fields] of entries) {
        last = id;
        const [, type = '', , jobId = '', , data = ''] = fields;
        if (type === 'hello') continue;
        if (Object.hasOwn(received, type)) received[type as NoticeType] += 1;
        for (const listener of listeners) listener({ type: type as NoticeType, jobId, data });
      }
      untrimmed += entries.length;
      if (untrimmed >= TRIM_EVERY) await trim();
    }
  };

  let refresh: NodeJS.Timeout | undefined;
  return {
    key,
    received: received as Readonly<Record<NoticeType, number>>,
    async start() {
      await ensure();
      refresh = setInterval(
        () => void Promise.all([ensure(), trim()]).catch((err: Error) => log.warn({ err: err.message }, 'inbox refresh failed')),
        REFRESH_MS,
      );
      refresh.unref();
      void read();
    },
    /** Hands every notice to `listener`. */
    listen(listener: (notice: Notice) => void) {
      listeners.add(listener);
    },
    /** For a job this process did not add: its end is sent here too. */
    async watch(jobId: string) {
      const set = waiterSetKey(prefix, jobId);
      await writer.multi().sadd(set, key).expire(set, WAITER_SET_TTL_SECONDS).exec();
    },
    async stop() {
      stopped = true;
      clearInterval(refresh);
      reader.disconnect();
      await writer.del(key).catch(() => undefined);
    },
  };
}

export type Inbox = ReturnType<typeof createInbox>;
