import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';

/** What a script runs on: one server or a cluster (the relay types a cluster client as Redis). */
export type ScriptHost = Redis | Cluster;

type Value = string | number;
type Named<Names extends readonly string[]> = { readonly [N in Names[number]]: Value };

export interface LuaCommandSpec<
  Keys extends readonly string[],
  Args extends readonly string[],
  Reply extends z.ZodType,
  Rest extends boolean,
> {
  /** Unique in the relay: the command ioredis defines on each connection. */
  name: string;
  /** The script's source: a `.lua` file imported as text. */
  lua: string;
  /** KEYS, in order. On Redis Cluster they must share one hash tag (one slot): the first routes the call. */
  keys: Keys;
  /** ARGV, in order. */
  args: Args;
  /** More ARGV follow the named ones (field/value pairs, one group per candidate). */
  rest?: Rest;
  /** What the script answers, as Redis converts it (integers, strings, arrays; a Lua nil ends an array). */
  reply: Reply;
}

/** A script as a typed function: keys and arguments by name, the reply parsed. */
export type LuaCommand<Keys extends readonly string[], Args extends readonly string[], Reply extends z.ZodType, Rest extends boolean> = (
  redis: ScriptHost,
  keys: Named<Keys>,
  args: Named<Args>,
  ...rest: Rest extends true ? Value[] : []
) => Promise<z.output<Reply>>;

type Runner = (...keysAndArgs: Value[]) => Promise<unknown>;

const sources = new Map<string, string>();

/**
 * A Lua script registered with ioredis' `defineCommand` on each connection it is first called on:
 * ioredis sends it whole once per socket, then runs it by its SHA1 (EVALSHA), sends it again when
 * the server answers NOSCRIPT (a restart, a SCRIPT FLUSH, a failover), and on a cluster routes it
 * by its first key.
 */
export function luaCommand<
  const Keys extends readonly string[],
  const Args extends readonly string[],
  Reply extends z.ZodType,
  Rest extends boolean = false,
>(spec: LuaCommandSpec<Keys, Args, Reply, Rest>): LuaCommand<Keys, Args, Reply, Rest> {
  if (typeof spec.lua !== 'string' || !spec.lua.trim()) {
    throw new Error(`script ${spec.name} has no source: a .lua import needs the text loader (scripts/lua-as-text.mjs under tsx)`);
  }
  if (sources.has(spec.name) && sources.get(spec.name) !== spec.lua) throw new Error(`two scripts are named ${spec.name}`);
  sources.set(spec.name, spec.lua);
  // an own property of the connection, named so it can never shadow one of ioredis' own
  const command = `lua:${spec.name}`;

  return async (redis, keys, args, ...rest) => {
    if (!Object.hasOwn(redis, command)) redis.defineCommand(command, { lua: spec.lua, numberOfKeys: spec.keys.length });
    const run = (redis as unknown as Record<string, Runner>)[command]!;
    const raw = await run.call(
      redis,
      ...spec.keys.map((k: Keys[number]) => keys[k]),
      ...spec.args.map((a: Args[number]) => args[a]),
      ...rest,
    );
    const parsed = spec.reply.safeParse(raw);
    if (!parsed.success) throw new Error(`script ${spec.name} answered ${JSON.stringify(raw)}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
}
