import { Counter, type Registry } from 'prom-client';
import { AppError } from './errors/app-error.js';
import type { Logger } from './logger.js';
import { createRedis, waitForRedis } from './redis.js';
import { isSentinelUrl } from './redis-sentinel.js';

/**
 * How long an answer waits for a replica to acknowledge what it depends on. A healthy replica
 * acknowledges within a round trip (the primary asks it at once); a replica that does not within
 * this bound is taken as away, and answers stop waiting for it (see `behind`) rather than each
 * paying the bound: the relay stays available with its replica gone, as Redis itself does.
 */
export const REPLICATION_BOUND_MS = 2_000;

/** The outcome of one wait, as counted in `relay_replication_waits_total`. */
export type ReplicationOutcome = 'acknowledged' | 'timed_out' | 'skipped';

export interface Replication {
  /** Whether answers wait for a replica at all (behind Sentinel): where they do not, nothing a replica has need be waited for. */
  readonly waits: boolean;
  /**
   * Resolves once every write this process saw acknowledged before the call is on a replica too
   * (or right away where there is nothing to wait for); rejects when Redis cannot be reached,
   * which the caller answers as 503 (isRedisUnavailable).
   */
  replicated(): Promise<void>;
  /**
   * Throws a 503 (unavailable) while the wait could not be made: called before the writes an
   * answer will wait for, so a request is refused before it writes rather than after (its job
   * then admitted and run while its client was told to retry). After a failover the relay's
   * connections find the new primary one by one; until this one has, nothing is admitted.
   */
  mustBeAbleToWait(): void;
  close(): void;
}

const nothingToWait: Replication = { waits: false, replicated: () => Promise.resolve(), mustBeAbleToWait: () => {}, close: () => {} };

/**
 * The one place the relay waits for replication before it answers (docs/guarantees.md, "Nothing
 * lost across a Redis failover"). Only behind Sentinel (`redis+sentinel://`): that is where a
 * replica can be promoted and an acknowledged write lost with the old primary; a single Redis has
 * nothing to wait for, and on Redis Cluster the relay does not wait (WAIT would have to go to the
 * shard of the relay's hash tag; its failover is not covered, as the guarantees say).
 *
 * WAIT counts the writes of the connection it is sent on, and the relay writes on several (its
 * own, BullMQ's). So a round writes once on a connection of its own (a SET that expires) and WAITs there: the
 * replication stream is one ordered log, so a replica that has the round's write has every write
 * acknowledged before it was sent, whatever connection made it. Rounds are shared (group commit):
 * one in flight, and the callers that come meanwhile share the next one, so a burst costs two
 * rounds, not one per answer, and no WAIT blocks a connection other commands use.
 */
export async function createReplication(url: string, prefix: string, log: Logger, registry?: Registry): Promise<Replication> {
  if (!isSentinelUrl(url)) return nothingToWait;
  const redis = createRedis(url, 'fail-fast', 'replicated', (err) => log.warn({ err: err.message }, 'replication wait connection error'));
  await waitForRedis(redis, 30_000);
  const key = `${prefix}:replicated`;
  const counted = new Counter({
    name: 'relay_replication_waits_total',
    help: 'Answers that waited for a Redis replica (behind Sentinel): acknowledged, timed_out (answered after the bound), skipped (answered at once while the replica is behind)',
    labelNames: ['outcome'],
    registers: registry ? [registry] : [],
  });
  let behind = false;

  async function round(): Promise<number> {
    const replies = await redis
      .pipeline([
        // a write of its own, which the replica must have; it expires, so nothing stays behind
        ['set', key, '1', 'PX', '60000'],
        ['wait', '1', String(REPLICATION_BOUND_MS)],
      ])
      .exec();
    for (const [error] of replies ?? []) if (error) throw error;
    const acks = Number(replies![1]![1]);
    if (acks === 0 && !behind)
      log.warn(
        { boundMs: REPLICATION_BOUND_MS },
        'no Redis replica acknowledged within the bound: answering without waiting until one does',
      );
    if (acks > 0 && behind) log.info('a Redis replica acknowledges again: answers wait for it again');
    behind = acks === 0;
    return acks;
  }

  let inFlight: Promise<number> | undefined;
  let queued: Promise<number> | undefined;
  const start = () => {
    const current = round().finally(() => {
      if (inFlight === current) inFlight = undefined;
    });
    inFlight = current;
    return current;
  };
  /** A round that begins after this call: the one queued behind the round in flight, or a new one. */
  const nextRound = () => {
    if (!inFlight) return start();
    queued ??= inFlight
      .catch(() => 0)
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };

  return {
    waits: true,
    async replicated() {
      const next = nextRound();
      if (behind) {
        // the round still runs: the first one a replica acknowledges ends this
        next.catch(() => undefined);
        counted.inc({ outcome: 'skipped' });
        return;
      }
      counted.inc({ outcome: (await next) > 0 ? 'acknowledged' : 'timed_out' });
    },
    mustBeAbleToWait() {
      if (redis.status !== 'ready')
        throw new AppError('unavailable', 'the relay is finding its Redis primary; retry shortly', { retryAfterMs: 1_000 });
    },
    close: () => redis.disconnect(),
  };
}
