import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { runStep, runStepSoon, runSteps, subscribeWhenReady, type Step } from '@relay/core';
import { pickScript, releaseScript, renewScript } from './commands.js';
import { channelKeys, type LimitSet } from './keys.js';

/** A channel a call may go to, with the capacity it takes (its own limit set first). */
export interface Candidate {
  id: string;
  tier: number;
  weight: number;
  sets: LimitSet[];
}

export type CallOutcome = 'ok' | 'fail' | 'limited' | 'exhausted' | 'auth' | 'none';

/** What a failed call says about its channel, and whether another channel should be tried. */
export interface Verdict {
  outcome: CallOutcome;
  /** `limited`: how long the channel asked to be left alone; `exhausted`: until its quota resets (or a probe). */
  delayMs?: number;
  /** `auth`: why the channel is disabled; `exhausted`: what the vendor said of its quota. */
  reason?: string;
  /** true: the channel's fault (5xx, 429, timeout, reset, its key); never for a refusal of the content. */
  failover: boolean;
}

export interface BreakerSettings {
  /** The window failures are counted over, the calls it must hold before it may open, the share of failures that opens it. */
  windowMs: number;
  minCalls: number;
  failureShare: number;
  /** Failures in a row that open it at once. */
  consecutive: number;
  /** How long an opened breaker keeps its channel out before a probe call. */
  cooldownMs: number;
}

export interface RouterSettings {
  redis: Redis;
  /** A connection in subscriber mode (told when a lease is given back). */
  subscriber: Redis;
  prefix: string;
  /** A lease outlives a dead worker this long (renewed while its call runs). */
  leaseMs: number;
  breaker: BreakerSettings;
  /** Waits up to this long happen here; a longer one is the caller's (a job is delayed instead). */
  shortWaitMs: number;
  /** Told of every call's end (metrics, logs). */
  onCall?: (channel: string, outcome: CallOutcome, ms: number, state: string) => void;
  random?: () => number;
}

/** Every channel that could take the call is cooling (open breakers, per-minute limits) for longer than a short wait. */
export class ChannelsCooling extends Error {
  override name = 'ChannelsCooling';
  constructor(
    readonly waitMs: number,
    readonly lastError?: unknown,
  ) {
    super(`every channel is cooling for at least ${waitMs} ms`);
  }
}

const POLL_MS = 200;

/** A pick's lease as a gate sees it: its token, and the lease sets (keys) one of which holds it once a channel is leased. */
export interface PickLease {
  token: string;
  sets: string[];
}

/**
 * Asked with a pick: true when the call may go on the channel just leased, false when the pick
 * leased none (the gate then changed nothing); a throw stops the call (its lease, if any, given
 * back uncounted). A gate answers with a step (a script not yet sent), which runs in the same
 * script as the pick, right after it; or with a function, called once the pick is sent (its
 * commands then follow the pick's in the same round trip when it sends them on the same
 * connection). Once a call has waited for a channel it is asked only after the pick that leases
 * one, so that a call polling for a full channel does not send it with every pick.
 */
export type CallGate = (lease: PickLease) => Step<boolean> | (() => Promise<boolean>);

/**
 * Sends one upstream call through the channels that can take it: the best usable one (lua/pick.lua)
 * gets it, and when that channel fails it in a way that is the channel's fault, the next
 * one gets it at once, each channel at most once per `call`. When every channel is full the call
 * waits for a freed lease; when every one is cooling it waits if the wait is short, else throws
 * ChannelsCooling so the job can wait without holding a worker.
 */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise that never rejects (awaited later, after another): what it came to. */
const settled = <T>(promise: Promise<T> | undefined): Promise<Settled<T>> | undefined =>
  promise?.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

export function createChannelRouter(settings: RouterSettings) {
  const keys = channelKeys(settings.prefix);
  const random = settings.random ?? Math.random;
  const { breaker } = settings;
  const waiting: Array<() => void> = [];
  // without the subscription a waiting call still looks again every POLL_MS, and ioredis
  // subscribes again on its own when the connection comes back: a failure costs only that delay
  void subscribeWhenReady(settings.subscriber, keys.freed).catch(() => undefined);
  settings.subscriber.on('message', (channel: string) => {
    if (channel !== keys.freed) return;
    for (const wake of waiting.splice(0, 4)) wake();
  });

  const freedOrPoll = () =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = waiting.indexOf(wake);
        if (at >= 0) waiting.splice(at, 1);
        resolve();
      }, POLL_MS);
      waiting.push(wake);
    });

  function pickStep(candidates: Candidate[], token: string) {
    const args = candidates.flatMap((c) => [
      c.id,
      c.tier,
      c.weight,
      c.sets.map((s) => `${s.name},${s.maxConcurrent},${s.maxPerMinute}`).join('|'),
    ]);
    return pickScript.step(
      { version: keys.version },
      { prefix: settings.prefix, leaseMs: settings.leaseMs, token, random1: random(), random2: random(), candidates: candidates.length },
      ...args,
    );
  }
  type PickReply = ReturnType<ReturnType<typeof pickStep>['parse']>;
  const pickedOf = (reply: PickReply): { id: string } | { wait: number } => ('id' in reply ? { id: reply.id } : reply);

  /** The gate's answer, whichever way it gives it. */
  const ask = (gate: CallGate | undefined, lease: PickLease) => {
    const asked = gate?.(lease);
    return settled(typeof asked === 'function' ? asked() : asked && runStep(settings.redis, asked));
  };

  /** The pick and, unless the call has waited, its gate: one script when the gate gives a step. */
  async function pickAndAsk(candidates: Candidate[], lease: PickLease, gate: CallGate | undefined, waited: boolean) {
    const step = pickStep(candidates, lease.token);
    const asked = waited ? undefined : gate?.(lease);
    if (asked && typeof asked !== 'function') {
      const [pick, gone] = await runSteps(settings.redis, [step, asked]);
      if (!pick.ok) throw pick.error;
      return { picked: pickedOf(pick.value), gone };
    }
    const picking = runStep(settings.redis, step);
    const gated = settled(asked?.());
    const pick = await picking.catch(async (error: unknown) => {
      await gated;
      throw error;
    });
    return { picked: pickedOf(pick), gone: gated ? await gated : 'id' in pick ? await ask(gate, lease) : undefined };
  }

  /** `soon`: it may ride with the next script this process sends (runStepSoon), as an answer's does. */
  const release = (candidate: Candidate, token: string, verdict: Verdict, ms: number, soon = false) =>
    (soon ? runStepSoon : runStep)(
      settings.redis,
      releaseScript.step(
        { version: keys.version },
        {
          prefix: settings.prefix,
          id: candidate.id,
          token,
          sets: candidate.sets.map((s) => s.name).join('|'),
          outcome: verdict.outcome,
          latencyMs: Math.round(ms),
          delayMs: Math.round(verdict.delayMs ?? breaker.cooldownMs),
          windowMs: breaker.windowMs,
          minCalls: breaker.minCalls,
          failureShare: breaker.failureShare,
          cooldownMs: breaker.cooldownMs,
          reason: verdict.reason ?? '',
          consecutive: breaker.consecutive,
        },
      ),
    );

  /** One call on the picked channel, its leases kept while it runs; the verdict and the value or error. */
  async function attempt<T>(candidate: Candidate, token: string, run: (channel: string) => Promise<T>, judge: (error: unknown) => Verdict) {
    const names = candidate.sets.map((s) => s.name).join('|');
    const renew = setInterval(
      () =>
        void renewScript(
          settings.redis,
          { version: keys.version },
          { prefix: settings.prefix, token, leaseMs: settings.leaseMs, sets: names, id: candidate.id },
        ).catch(() => undefined),
      settings.leaseMs / 3,
    );
    const started = performance.now();
    let outcome: { value: T } | { error: unknown; verdict: Verdict };
    try {
      outcome = { value: await run(candidate.id) };
    } catch (error) {
      outcome = { error, verdict: judge(error) };
    } finally {
      clearInterval(renew);
    }
    const ms = performance.now() - started;
    const verdict: Verdict = 'value' in outcome ? { outcome: 'ok', failover: false } : outcome.verdict;
    const answered = 'value' in outcome;
    const released = release(candidate, token, verdict, ms, answered)
      .catch(() => 'unknown')
      .then((state) => settings.onCall?.(candidate.id, verdict.outcome, ms, state));
    // an answer goes on at once (the lease and the breaker are told on the side, with the job's
    // next step: its checkpoint); a failure waits for them, so the next pick sees the channel as
    // this call left it
    if (!answered) await released;
    return outcome;
  }

  return {
    /** `gate`: what must hold before each attempt (a job's begin), asked with its pick (CallGate). */
    async call<T>(
      candidates: Candidate[],
      run: (channel: string) => Promise<T>,
      judge: (error: unknown) => Verdict,
      gate?: CallGate,
    ): Promise<{ value: T; channel: string }> {
      const tried = new Set<string>();
      let last: unknown;
      let waited = false;
      for (;;) {
        const left = candidates.filter((c) => !tried.has(c.id));
        if (!left.length) throw last;
        const token = randomBytes(12).toString('hex');
        const lease = { token, sets: left.map((c) => keys.leases(c.sets[0]!.name)) };
        // with the pick, until the call has waited for a channel: a waiting call polls with its
        // picks alone, and asks the gate after the one that leases (a round trip more, then)
        const { picked, gone } = await pickAndAsk(left, lease, gate, waited);
        if ('id' in picked && gone && !(gone.ok && gone.value)) {
          // the gate refused the leased call (cancelled, stopped, past its deadline): its lease back, counted as no call
          const candidate = left.find((c) => c.id === picked.id)!;
          await release(candidate, token, { outcome: 'none', failover: false }, 0).catch(() => undefined);
          throw gone.ok ? new Error(`the gate found no lease of ${picked.id}, which its pick had just taken`) : gone.error;
        }
        if (gone && !gone.ok) throw gone.error;
        if ('wait' in picked) {
          waited = true;
          if (picked.wait < 0) await freedOrPoll();
          else if (picked.wait <= settings.shortWaitMs) await sleep(picked.wait + Math.floor(random() * 20));
          else throw new ChannelsCooling(picked.wait, last);
          continue;
        }
        const candidate = left.find((c) => c.id === picked.id)!;
        const outcome = await attempt(candidate, token, run, judge);
        if ('value' in outcome) return { value: outcome.value, channel: candidate.id };
        if (!outcome.verdict.failover) throw outcome.error;
        last = outcome.error;
        tried.add(candidate.id);
      }
    },
  };
}

export type ChannelRouter = ReturnType<typeof createChannelRouter>;
