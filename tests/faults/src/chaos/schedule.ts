import type { FaultInput } from '@relay/simulator';
import { Draw } from './random.js';

/** What the clients send; `refused` is a request the relay must turn down (400). */
export const REQUEST_KINDS = ['image', 'image-async', 'images-2', 'speech', 'speech-async', 'idempotent', 'refused'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export type Mix = Record<RequestKind, number>;

export type Action =
  /** The clients' next requests are drawn with these weights. */
  | { do: 'mix'; mix: Mix }
  /** Queued at the simulator: the next matching upstream calls fail this way. */
  | { do: 'upstream'; fault: FaultInput }
  /** SIGKILL (`kill`) or SIGTERM (`restart`) one of the two workers or the spawned api; a new one takes its place. */
  | { do: 'kill' | 'restart'; app: 'worker' | 'api'; which: number }
  /** SIGSTOP, then SIGCONT `ms` later: a process that stops answering without dying (a GC pause, a frozen VM). */
  | { do: 'pause'; target: 'worker' | 'redis'; which: number; ms: number }
  /** The store or Redis is stopped until the clients have had `answers` more answers, then started again. */
  | { do: 'store-outage' | 'redis-outage'; answers: number }
  /** The Redis primary is killed; the sentinels promote its replica (once per run: then no replica is left). */
  | { do: 'failover' }
  /** `requests` more requests whose clients leave once `after` other answers came back (0: at once). */
  | { do: 'depart'; requests: number; after: number }
  /** `jobs` async jobs, cancelled by their owner once `after` other answers came back. */
  | { do: 'cancel'; jobs: number; after: number }
  /** A batch of `lines` lines through the Batches API, cancelled once `cancelAfter` answers came back if set. */
  | { do: 'batch'; api: 'images' | 'speech'; lines: number; cancelAfter?: number };

export interface Step {
  /** Answers the clients must have had since the previous step before this one acts. */
  gap: number;
  action: Action;
}

export interface Schedule {
  seed: number;
  minutes: number;
  /** Redis behind Sentinel, with one failover among the steps; else a redis-server of the run's own that may stop and pause. */
  sentinel: boolean;
  steps: Step[];
}

/**
 * Steps a minute of schedule holds: what a two-core machine gets through in about a minute, with
 * the gaps below. The clock never decides anything: a slower machine takes longer over the same steps.
 */
export const STEPS_PER_MINUTE = 12;

const ACTIONS = {
  mix: 1,
  upstream: 4,
  kill: 2,
  restart: 1,
  pause: 2,
  'store-outage': 1,
  'redis-outage': 1,
  depart: 2,
  cancel: 2,
  batch: 1,
} as const;

function drawFault(draw: Draw): FaultInput {
  const api = draw.pick(['images', 'speech'] as const);
  switch (draw.pick(['500', '503', '429', 'hang', 'drop', 'quota'] as const)) {
    case '500':
      return { type: 'error', api, status: 500, times: draw.int(1, 3) };
    case '503':
      return { type: 'error', api, status: 503, times: draw.int(1, 3) };
    case '429':
      // Gemini names its delay; Ark names none (the relay's own tuning.worker.rateLimitDelayMs applies)
      return api === 'speech'
        ? { type: 'error', api, status: 429, retryDelay: `${draw.int(1, 10) / 10}s`, times: draw.int(1, 2) }
        : { type: 'error', api, status: 429, times: draw.int(1, 2) };
    case 'hang':
      return { type: 'hang', api, times: 1 };
    case 'drop':
      return { type: 'drop', api, times: draw.int(1, 2) };
    case 'quota':
      return { type: 'quota', api: 'speech', period: 'minute', retryDelay: `${draw.int(1, 3)}s`, times: 1 };
  }
}

function drawMix(draw: Draw): Mix {
  return Object.fromEntries(
    REQUEST_KINDS.map((kind) => [kind, kind === 'refused' ? draw.int(0, 1) : draw.int(0, 4) + (kind === 'image' ? 1 : 0)]),
  ) as Mix;
}

function drawAction(draw: Draw, sentinel: boolean): Action {
  const kind = draw.weighted(
    sentinel ? Object.fromEntries(Object.entries(ACTIONS).filter(([k]) => k !== 'redis-outage')) : ACTIONS,
  ) as keyof typeof ACTIONS;
  switch (kind) {
    case 'mix':
      return { do: 'mix', mix: drawMix(draw) };
    case 'upstream':
      return { do: 'upstream', fault: drawFault(draw) };
    case 'kill':
    case 'restart':
      return { do: kind, app: draw.pick(['worker', 'worker', 'api'] as const), which: draw.int(0, 1) };
    case 'pause': {
      // with Sentinel a paused primary would be failed over: the one failover is its own step
      const target = sentinel ? 'worker' : draw.pick(['worker', 'redis'] as const);
      return { do: 'pause', target, which: draw.int(0, 1), ms: draw.int(3, 30) * 100 };
    }
    case 'store-outage':
    case 'redis-outage':
      return { do: kind, answers: draw.int(5, 30) };
    case 'depart':
      return { do: 'depart', requests: draw.int(1, 4), after: draw.int(0, 5) };
    case 'cancel':
      return { do: 'cancel', jobs: draw.int(1, 4), after: draw.int(0, 10) };
    case 'batch':
      return {
        do: 'batch',
        api: draw.pick(['images', 'speech'] as const),
        lines: draw.int(2, 12),
        ...(draw.chance(0.3) ? { cancelAfter: draw.int(0, 20) } : {}),
      };
  }
}

/** The schedule of `seed`: a pure function of the seed and the length, so a seed replays its schedule. */
export function drawSchedule(seed: number, minutes = 1): Schedule {
  const draw = new Draw(seed);
  const sentinel = draw.chance(0.25);
  const length = Math.max(2, Math.round(minutes * STEPS_PER_MINUTE));
  const steps: Step[] = Array.from({ length }, () => ({ gap: draw.int(5, 40), action: drawAction(draw, sentinel) }));
  if (sentinel) steps[draw.int(0, length - 1)]!.action = { do: 'failover' };
  return { seed, minutes, sentinel, steps };
}

/** One step as a line: what a failure names, and what a replay shows. */
export function describeStep(step: Step): string {
  const { action: a } = step;
  const what = (() => {
    switch (a.do) {
      case 'mix':
        return `mix ${Object.entries(a.mix)
          .map(([kind, weight]) => `${kind}:${weight}`)
          .join(' ')}`;
      case 'upstream': {
        const { type, api, ...rest } = a.fault;
        return `upstream ${api} ${type} ${Object.entries(rest)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' ')}`;
      }
      case 'kill':
      case 'restart':
        return `${a.do} ${a.app}${a.app === 'worker' ? ` ${a.which}` : ''}`;
      case 'pause':
        return `pause ${a.target}${a.target === 'worker' ? ` ${a.which}` : ''} for ${a.ms} ms`;
      case 'store-outage':
      case 'redis-outage':
        return `${a.do} for ${a.answers} answers`;
      case 'failover':
        return 'failover of the Redis primary';
      case 'depart':
        return `${a.requests} clients leave after ${a.after} answers`;
      case 'cancel':
        return `${a.jobs} async jobs cancelled after ${a.after} answers`;
      case 'batch':
        return `batch of ${a.lines} ${a.api} lines${a.cancelAfter === undefined ? '' : `, cancelled after ${a.cancelAfter} answers`}`;
    }
  })();
  return `after ${step.gap} answers: ${what}`;
}

export const formatSchedule = (schedule: Schedule) =>
  [
    `seed=${schedule.seed} minutes=${schedule.minutes} redis=${schedule.sentinel ? 'sentinel' : 'own'} steps=${schedule.steps.length}`,
    ...schedule.steps.map((step, i) => `  ${i + 1}. ${describeStep(step)}`),
  ].join('\n');
