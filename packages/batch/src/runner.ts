import { randomBytes } from 'node:crypto';
import { AppError, every, evalScript, putObject } from '@relay/core';
import type { BatchContext } from './context.js';
import { feed } from './feed.js';
import { finish } from './finish.js';
import { PART_LINES, partKey } from './keys.js';
import type { Ending } from './output-lines.js';
import type { BatchRecord } from './records.js';
import { reconcile, windDown } from './reconcile.js';
import { FLUSHED } from './scripts.js';

const TICK_MS = 500;
const RECONCILE_EVERY_MS = 5_000;
/** A batch still `validating` this long after it was made lost its api mid-way: it fails. */
const VALIDATION_GRACE_MS = 10 * 60_000;

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** Finished lines beyond a part's worth are written to the store: Redis keeps at most about one part per batch. */
async function flush(ctx: BatchContext, b: BatchRecord) {
  const k = ctx.records.keys;
  for (let part = b.parts; (await ctx.redis.llen(k.records(b.id))) >= PART_LINES; part++) {
    const records = await ctx.redis.lrange(k.records(b.id), 0, PART_LINES - 1);
    const text = `${records.join('\n')}\n`;
    await putObject(ctx.store, partKey(b.id, part), Buffer.from(text), { contentType: 'application/jsonl' });
    if (Number(await evalScript(ctx.redis, FLUSHED, 2, k.batch(b.id), k.records(b.id), records.length, part)) === 0) return;
  }
}

const endingOf = (b: BatchRecord): Ending | undefined =>
  b.status === 'cancelling' ? 'cancelled' : b.expiresAt !== null && Date.now() / 1000 >= b.expiresAt ? 'expired' : undefined;

/**
 * The workers' side of batches: each batch that has work is taken by one worker at a time (a
 * lock in Redis that lapses if the worker dies) and moved one step: lines fed ahead of the
 * workers, finished lines written out, quiet lines checked, a stopping batch wound down, an
 * ended one finished. Every worker looks every tick; a line that finishes here pokes its batch.
 */
export function startBatchRunner(ctx: BatchContext) {
  const k = ctx.records.keys;
  const token = randomBytes(8).toString('hex');
  const working = new Set<string>();
  const again = new Set<string>();
  const reconciled = new Map<string, number>();

  async function advance(b: BatchRecord) {
    const inflight = async () => ctx.redis.zcard(k.inflight(b.id));
    if (b.status === 'validating') {
      if (Date.now() - b.createdAt * 1000 < VALIDATION_GRACE_MS) return;
      await ctx.billing.release(b.id);
      const errors = [
        {
          code: 'validation_interrupted',
          message: 'the relay stopped while it validated this batch; create it again',
          param: null,
          line: null,
        },
      ];
      await ctx.redis.hset(k.batch(b.id), { status: 'failed', failed_at: Math.floor(Date.now() / 1000), errors: JSON.stringify(errors) });
      b = (await ctx.records.read(b.id))!;
    }
    if (b.status === 'failed') {
      await ctx.announce(b, 'batch.failed');
      await ctx.redis.zrem(k.active, b.id);
      return;
    }
    if (b.status === 'finalizing') return finish(ctx, b, 'completed');
    if (b.status !== 'in_progress' && b.status !== 'cancelling') {
      await ctx.redis.zrem(k.active, b.id);
      return;
    }
    const ending = endingOf(b);
    if (ending) {
      if ((await windDown(ctx, b, ending)) > 0) await reconcile(ctx, b);
      await flush(ctx, b);
      if ((await inflight()) === 0) await finish(ctx, (await ctx.records.read(b.id))!, ending);
      return;
    }
    await feed(ctx, b);
    if (Date.now() - (reconciled.get(b.id) ?? 0) > RECONCILE_EVERY_MS) {
      reconciled.set(b.id, Date.now());
      await reconcile(ctx, b);
    }
    await flush(ctx, b);
    const now = (await ctx.records.read(b.id))!;
    if (now.fedEnd && now.status === 'in_progress' && (await inflight()) === 0) {
      reconciled.delete(b.id);
      await finish(ctx, now, 'completed');
    }
  }

  async function step(id: string) {
    if (working.has(id)) {
      again.add(id);
      return;
    }
    working.add(id);
    try {
      do {
        again.delete(id);
        if ((await ctx.redis.set(k.lock(id), token, 'PX', ctx.lockMs, 'NX')) !== 'OK') return;
        // renewed three times per lifetime: one failure is harmless, but a lock that lapses lets
        // another process step the same batch at once, so each failure is said
        const renew = setInterval(
          () =>
            void evalScript(ctx.redis, RENEW, 1, k.lock(id), token, ctx.lockMs).catch((err: Error) =>
              ctx.log.warn({ batchId: id, err: err.message }, "a batch step's lock could not be renewed"),
            ),
          ctx.lockMs / 3,
        );
        try {
          const b = await ctx.records.read(id);
          if (b) await advance(b);
          else await ctx.redis.zrem(k.active, id);
        } finally {
          clearInterval(renew);
          // a lock not given back lapses by itself within lockMs: the next step only comes later
          await evalScript(ctx.redis, UNLOCK, 1, k.lock(id), token).catch(() => undefined);
        }
      } while (again.has(id));
    } catch (error) {
      const level = error instanceof AppError && error.retryable ? 'warn' : 'error';
      ctx.log[level]({ batchId: id, err: (error as Error).message }, 'a batch step failed; the next tick tries again');
    } finally {
      working.delete(id);
    }
  }

  const stop = every(
    TICK_MS,
    async () => {
      for (const id of await ctx.records.active(200)) void step(id);
    },
    (error) => ctx.log.warn({ err: error.message }, 'batch tick failed; trying again'),
  );
  return {
    /** Something happened to the batch (a line finished): move it now rather than at the next tick. */
    poke: (id: string) => void step(id),
    stop,
  };
}
