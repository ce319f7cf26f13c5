import { Redis } from 'ioredis';

/**
 * How the relay's commands reach Redis's socket. `coalesce` (coalesceWrites) is the relay's;
 * `autopipeline` (ioredis' enableAutoPipelining) and `plain` (neither) exist only so that
 * `BENCH_REDIS_WRITES=coalesce,autopipeline,plain npm run bench:commands` can measure them side by
 * side again (RELAY_BENCH_REDIS_WRITES, set by that bench alone; docs/benchmarks.md).
 */
export type RedisWrites = 'coalesce' | 'autopipeline' | 'plain';
export const REDIS_WRITES: RedisWrites =
  (['autopipeline', 'plain'] as const).find((m) => m === process.env.RELAY_BENCH_REDIS_WRITES) ?? 'coalesce';

const coalesced = new WeakSet<object>();

/**
 * ioredis writes each command to its socket at once: one system call per command. Corked until
 * the event loop has run this turn's callbacks (setImmediate: replies read from several sockets,
 * answers from the upstream), the commands they issued leave in one writev; none waits past that
 * turn. Each socket the client connects with (a reconnect makes a new one) is corked this way.
 *
 * Why not ioredis' own enableAutoPipelining (issue 34, npm run bench:commands, three interleaved
 * rounds of 1,500 requests at c=16, docs/benchmarks.md): it batches no better (Redis reads per
 * image request 5.3-5.9 against 4.9-5.7 here; 8.5-8.9 with neither), costs the api more CPU
 * (1.01-1.17 ms per image request against 0.76-0.79: a Pipeline and a promise per turn and
 * command), holds a turn's commands back until the previous batch has answered, and breaks the
 * relay's scripts: its Pipeline copies the commands defined when it was made, so a script defined
 * on first use (luaCommand) in the same turn fails with "pipeline[functionName] is not a function"
 * and takes the process down.
 */
export function coalesceWrites(client: unknown) {
  // a cluster's connections (one per node) and other clients are left as they are
  if (!(client instanceof Redis) || REDIS_WRITES !== 'coalesce') return;
  const redis = client;
  const cork = () => {
    const socket = redis.stream;
    if (!socket || coalesced.has(socket)) return;
    coalesced.add(socket);
    const write = socket.write;
    let corked = false;
    const uncork = () => {
      corked = false;
      socket.uncork();
    };
    socket.write = function (this: typeof socket, ...args: unknown[]) {
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(uncork);
      }
      return Reflect.apply(write, socket, args) as boolean;
    };
  };
  redis.on('connect', cork);
  // a client handed over already connected (BullMQ's own)
  if (redis.status === 'connect' || redis.status === 'ready') cork();
}
