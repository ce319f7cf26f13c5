import { ReplyError, type Cluster, type Redis } from 'ioredis';
import { z } from 'zod';

/** What a script runs on: one server or a cluster (the relay types a cluster client as Redis). */
export type ScriptHost = Redis | Cluster;

/** A key or an argument; a Buffer goes as its bytes. */
type Value = string | number | Buffer;
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

type Call<Keys extends readonly string[], Args extends readonly string[], Rest extends boolean> = [
  keys: Named<Keys>,
  args: Named<Args>,
  ...rest: Rest extends true ? Value[] : [],
];

/**
 * One script run with its keys and arguments, not yet sent: several steps go to Redis in one
 * round trip (runSteps), each reply parsed as its script's own.
 */
export interface Step<T> {
  /** The connection's name for the script (defined on it before the steps are sent). */
  readonly command: string;
  readonly lua: string;
  readonly numberOfKeys: number;
  readonly argv: readonly Value[];
  parse(raw: unknown): T;
}

/** A script as a typed function: keys and arguments by name, the reply parsed; `step` the same call, to send with others. */
export type LuaCommand<Keys extends readonly string[], Args extends readonly string[], Reply extends z.ZodType, Rest extends boolean> = ((
  redis: ScriptHost,
  ...call: Call<Keys, Args, Rest>
) => Promise<z.output<Reply>>) & { step(...call: Call<Keys, Args, Rest>): Step<z.output<Reply>> };

type Runner = (...keysAndArgs: Value[]) => Promise<unknown>;

/** Every script of the relay, by the command ioredis defines it as. */
const registered = new Map<string, { lua: string; numberOfKeys: number }>();

/** Every script of the relay defined on a connection at once, instead of each on its first call. */
export function defineEveryScript(redis: ScriptHost) {
  for (const [command, { lua, numberOfKeys }] of registered) define(redis, command, lua, numberOfKeys);
}

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
  // an own property of the connection, named so it can never shadow one of ioredis' own
  const command = `lua:${spec.name}`;
  if (registered.has(command) && registered.get(command)!.lua !== spec.lua) throw new Error(`two scripts are named ${spec.name}`);
  registered.set(command, { lua: spec.lua, numberOfKeys: spec.keys.length });
  const parse = (raw: unknown): z.output<Reply> => {
    const parsed = spec.reply.safeParse(raw);
    if (!parsed.success) throw new Error(`script ${spec.name} answered ${JSON.stringify(raw)}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
  const step = (...[keys, args, ...rest]: Call<Keys, Args, Rest>): Step<z.output<Reply>> => ({
    command,
    lua: spec.lua,
    numberOfKeys: spec.keys.length,
    argv: [...spec.keys.map((k: Keys[number]) => keys[k]), ...spec.args.map((a: Args[number]) => args[a]), ...(rest as Value[])],
    parse,
  });
  const run = (redis: ScriptHost, ...call: Call<Keys, Args, Rest>) => runStep(redis, step(...call));
  return Object.assign(run, { step });
}

function define(redis: ScriptHost, command: string, lua: string, numberOfKeys: number) {
  if (!Object.hasOwn(redis, command)) redis.defineCommand(command, { lua: SHARES.test(lua) ? `${SHARED}${lua}` : lua, numberOfKeys });
}

/**
 * What the steps of one script learn for each other (`shared`, a table every step sees): a
 * script runs whole before anything else does, so what one step read is still what Redis holds
 * when a later step would read it again (the clock, an account's cap, the lease a pick just
 * wrote). A script run alone has its own, empty. Each step still reads for itself what it was
 * not told.
 */
const SHARED = 'local shared = {}\n';
const SHARES = /\bshared[.[]/;

/** One step on its own (the same as calling its script); with a step waiting to ride (runStepSoon), both in one script. */
export async function runStep<T>(redis: ScriptHost, step: Step<T>): Promise<T> {
  if (riders.get(redis)?.length) return valueOf((await runSteps(redis, [step]))[0]);
  return send(redis, step);
}

async function send<T>(redis: ScriptHost, step: Step<T>): Promise<T> {
  define(redis, step.command, step.lua, step.numberOfKeys);
  return step.parse(await (redis as unknown as Record<string, Runner>)[step.command]!.call(redis, ...step.argv));
}

interface Rider {
  step: Step<unknown>;
  resolve(value: unknown): void;
  reject(error: Error): void;
}
/** Per connection, steps that wait for the next script sent on it in this turn of the event loop. */
const riders = new WeakMap<ScriptHost, Rider[]>();

/**
 * A step whose moment may wait a little: it rides in the next script sent on `redis` in this
 * turn of the event loop (before that script's own steps), or goes alone once the turn is over.
 * One rides per script, so the scripts composed stay a handful. For what another step of the
 * same process usually follows at once (a lease given back, then the job's checkpoint).
 */
export function runStepSoon<T>(redis: ScriptHost, step: Step<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let waiting = riders.get(redis);
    if (!waiting) riders.set(redis, (waiting = []));
    if (waiting.length === 0) {
      setImmediate(() => {
        for (const rider of riders.get(redis)?.splice(0) ?? []) send(redis, rider.step).then(rider.resolve, rider.reject);
      });
    }
    waiting.push({ step, resolve, reject });
  });
}

/** ioredis' class of Redis's error replies (untyped there): what a step's error is made as, so it reads as Redis's own. */
const RedisReplyError = ReplyError as new (message: string) => Error;

/** What one step of runSteps came to: its parsed reply, or the error it met. */
export type StepOutcome<T> = { ok: true; value: T } | { ok: false; error: Error };

/**
 * Runs the steps as one script (several steps sent as one EVALSHA, not one each: a command and
 * its parsing less per step, for Redis and for ioredis), and gives each outcome back, so a caller
 * can undo what ran when a later step failed. Not a transaction: each step runs in order in its
 * own protected call, and one that fails (its error kept as Redis's own reply error) leaves the
 * others to run; but nothing else runs between them. A step waiting to ride on this connection
 * (runStepSoon) goes first, in the same script. On a cluster every step's keys must share one
 * slot (the relay's keys share the prefix's hash tag); the first step's first key routes it.
 */
export async function runSteps<const S extends readonly Step<unknown>[]>(
  redis: ScriptHost,
  steps: S,
): Promise<{ -readonly [K in keyof S]: StepOutcome<S[K] extends Step<infer T> ? T : never> }> {
  type Outcomes = { -readonly [K in keyof S]: StepOutcome<S[K] extends Step<infer T> ? T : never> };
  const rider = riders.get(redis)?.shift();
  const all: readonly Step<unknown>[] = rider ? [rider.step, ...steps] : steps;
  let outcomes: StepOutcome<unknown>[];
  if (all.length <= 1) {
    const settled = await Promise.allSettled(all.map((step) => send(redis, step)));
    outcomes = settled.map((outcome) =>
      outcome.status === 'fulfilled' ? { ok: true, value: outcome.value } : { ok: false, error: outcome.reason as Error },
    );
  } else {
    outcomes = await runComposed(redis, all);
  }
  if (rider) {
    const [own] = outcomes.splice(0, 1);
    if (own!.ok) rider.resolve(own!.value);
    else rider.reject(own!.error);
  }
  return outcomes as Outcomes;
}

async function runComposed(redis: ScriptHost, steps: readonly Step<unknown>[]): Promise<StepOutcome<unknown>[]> {
  let replies: unknown;
  try {
    replies = await send(redis, composedStep(steps));
  } catch (error) {
    return steps.map(() => ({ ok: false, error: error as Error }));
  }
  return steps.map((step, i): StepOutcome<unknown> => {
    const [ran, reply] = (replies as Array<[number, unknown?]>)[i]!;
    if (ran !== 1) return { ok: false, error: new RedisReplyError(String(reply)) };
    try {
      return { ok: true, value: step.parse(reply ?? null) };
    } catch (error) {
      return { ok: false, error: error as Error };
    }
  });
}

/**
 * Each step's script becomes a function of its own KEYS and ARGV in one script; ARGV[1] says how
 * many keys and arguments each takes. A step's reply comes back as {1, reply}, its error as
 * {0, message} (a reply error it returned, or one raised by it or by a command it called).
 */
const COMPOSED_RUN = `}
local counts = {}
for n in string.gmatch(ARGV[1], '%d+') do counts[#counts + 1] = tonumber(n) end
local out, k, a = {}, 0, 1
for i = 1, #steps do
  local nk, na = counts[2 * i - 1], counts[2 * i]
  local keys, argv = {}, {}
  for j = 1, nk do keys[j] = KEYS[k + j] end
  for j = 1, na do argv[j] = ARGV[a + j] end
  k, a = k + nk, a + na
  local ok, reply = pcall(steps[i], keys, argv)
  if type(reply) == 'table' and reply.err then out[i] = {0, reply.err}
  elseif ok then out[i] = {1, reply}
  else out[i] = {0, tostring(reply)} end
end
return out`;

/**
 * The steps of one script share one reading of Redis's clock: a script runs whole before anything
 * else does, so its steps happen at one moment, and each TIME after the first would be a command
 * spent to learn nothing. A step that learned the time otherwise (a stream entry's id) may leave
 * it as `shared.clock`, in TIME's shape.
 */
const TIME_CALL = "redis.call('TIME')";
const TIME_ONCE = `local function time_once()
  if shared.clock == nil then shared.clock = redis.call('TIME') end
  return shared.clock
end
`;

/** The composed scripts made so far, by the steps' commands in order (a handful: one per call site and file count). */
const composed = new Map<string, string>();

function composedStep(steps: readonly Step<unknown>[]): Step<unknown> {
  const command = steps.map((step) => step.command).join('+');
  let lua = composed.get(command);
  if (lua === undefined) {
    const bodies = steps.map((step) => `function(KEYS, ARGV)\n${step.lua.replaceAll(TIME_CALL, 'time_once()')}\nend,\n`);
    lua = `${TIME_ONCE}local steps = {\n${bodies.join('')}${COMPOSED_RUN}`;
    composed.set(command, lua);
  }
  const keys = steps.flatMap((step) => step.argv.slice(0, step.numberOfKeys));
  const counts = steps.map((step) => `${step.numberOfKeys} ${step.argv.length - step.numberOfKeys}`).join(' ');
  const args = steps.flatMap((step) => step.argv.slice(step.numberOfKeys));
  return { command, lua, numberOfKeys: keys.length, argv: [...keys, counts, ...args], parse: (raw) => raw };
}

/** The value of a step that must have worked: its error thrown otherwise. */
export function valueOf<T>(outcome: StepOutcome<T>): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
