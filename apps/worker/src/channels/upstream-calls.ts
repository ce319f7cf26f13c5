import { AppError, inSpan, SpanKind, type Logger } from '@relay/core';
import { ChannelsCooling, createChannelRouter, readHealth, type BreakerSettings, type CallGate, type Verdict } from '@relay/channels';
import type { QueueName } from '@relay/jobs';
import type { Redis } from 'ioredis';
import { errorClass, UpstreamError } from '../upstreams/upstream-error.js';
import type { Adapter } from '../upstreams/adapters.js';
import type { WorkerMetrics } from '../metrics.js';
import { channelCallLevel } from '../log-levels.js';
import type { ChannelRegistry, LiveChannel } from './registry.js';

export interface UpstreamCallSettings {
  redis: Redis;
  subscriber: Redis;
  prefix: string;
  registry: ChannelRegistry;
  leaseMs: number;
  breaker: BreakerSettings;
  /** 429s that name no delay (Ark sends none) cool their channel this long; none longer than the maximum. */
  rateLimit: { defaultMs: number; maxMs: number };
  metrics: WorkerMetrics;
  log: Logger;
}

/** A channel's adapter for a job of `queue`: the registry serves a queue only the channels of its capability. */
function adapterFor<Q extends QueueName>(channel: LiveChannel, queue: Q): Adapter<Q> {
  if (channel.adapter.capability !== queue)
    throw new Error(`channel ${channel.record.id} serves ${channel.adapter.capability}, not ${queue}`);
  return channel.adapter.adapter as Adapter<Q>;
}

const hostOf = (baseUrl: string) => (URL.canParse(baseUrl) ? new URL(baseUrl).host : baseUrl);

/** A vendor key refused: the channel's own problem, which no retry fixes. */
const AUTH_CODES = new Set(['API_KEY_INVALID', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'AuthenticationError']);

/** An exhausted quota that names no reset is tried again after this long (one probe call). */
export const EXHAUSTED_PROBE_MS = 15 * 60_000;

/** What an upstream failure says about the channel it happened on. */
export function verdictOf(error: unknown, rateLimit: UpstreamCallSettings['rateLimit']): Verdict {
  if (error instanceof AppError && error.code === 'cancelled') return { outcome: 'none', failover: false };
  if (!(error instanceof UpstreamError)) return { outcome: 'ok', failover: false };
  const { status, code, retryAfterMs } = error.details;
  switch (error.kind) {
    case 'transient':
      return { outcome: 'fail', failover: true };
    case 'rate-limited':
      return { outcome: 'limited', delayMs: Math.min(retryAfterMs ?? rateLimit.defaultMs, rateLimit.maxMs), failover: true };
    case 'quota-exhausted': {
      // until the vendor's reset where it names one, else a probe call later: an operator who lifts
      // a spend cap at the vendor need not also come here (though PATCH {"disabled": false} is quicker)
      const untilMs = error.details.untilMs;
      const delayMs = untilMs !== undefined && untilMs > Date.now() ? untilMs - Date.now() : EXHAUSTED_PROBE_MS;
      return { outcome: 'exhausted', delayMs, reason: `${code ?? `HTTP ${status}`}: ${error.message}`.slice(0, 300), failover: true };
    }
    case 'misconfigured':
      if (status === 401 || status === 403 || AUTH_CODES.has(code ?? ''))
        return { outcome: 'auth', reason: `auth: HTTP ${status}${code ? ` ${code}` : ''}: ${error.message}`.slice(0, 300), failover: true };
      return { outcome: 'fail', failover: true }; // a model the channel does not know (404): another channel may
    default:
      return { outcome: 'ok', failover: false }; // a refusal of the content: the channel works, and so would every other
  }
}

/**
 * Upstream calls through the channels serving a model: the router picks, fails over and keeps
 * the breakers; each call runs with the picked channel's adapter and its id for the model.
 */
export function createUpstreamCalls(settings: UpstreamCallSettings) {
  const { registry, metrics, log } = settings;
  const router = createChannelRouter({
    redis: settings.redis,
    subscriber: settings.subscriber,
    prefix: settings.prefix,
    leaseMs: settings.leaseMs,
    breaker: settings.breaker,
    shortWaitMs: 1_000,
    onCall(channel, outcome, ms, state) {
      if (outcome === 'none') return;
      metrics.channelCalls.inc({ channel, outcome });
      if (state === 'open' || state === 'closed') metrics.channelOpen.set({ channel }, state === 'open' ? 1 : 0);
      metrics.channelLatency.observe({ channel }, ms / 1000);
      if (outcome === 'exhausted') metrics.channelOpen.set({ channel }, 1);
      else if (outcome === 'auth') {
        metrics.channelDisabled.inc({ channel });
        log.error(
          { channel },
          "the upstream refused the channel's key: the channel is disabled until an operator enables it (PATCH /admin/channels/{id})",
        );
      } else if (outcome !== 'ok') log[channelCallLevel(outcome)]({ channel, outcome, state }, 'upstream call failed on a channel');
    },
  });
  const judge = (error: unknown) => verdictOf(error, settings.rateLimit);

  async function call<T>(queue: QueueName, model: string, run: (channel: LiveChannel, vendorModel: string) => Promise<T>, gate?: CallGate) {
    const serving = registry.serving(queue, model);
    if (!serving.length) {
      throw new AppError('upstream_misconfigured', `no enabled upstream channel serves ${model}; contact the relay's operator`, {
        retryable: false,
      });
    }
    const byId = new Map(serving.map((c) => [c.record.id, c]));
    return router
      .call(
        serving.map((c) => c.candidate),
        async (id) => {
          const channel = byId.get(id)!;
          metrics.channelInFlight.inc({ channel: id });
          try {
            const vendorModel = channel.models[model]!;
            // each attempt, on whichever channel, is a client span of the job's trace
            return await inSpan(
              'relay.upstream',
              {
                'server.address': hostOf(channel.record.baseUrl),
                'relay.channel': id,
                'gen_ai.request.model': vendorModel,
              },
              () => run(channel, vendorModel),
              SpanKind.CLIENT,
            );
          } catch (error) {
            if (error instanceof UpstreamError) metrics.upstreamErrors.inc({ channel: id, class: errorClass(error) });
            if (error instanceof UpstreamError && error.kind === 'quota-exhausted') {
              const { code, untilMs } = error.details;
              log.error(
                { channel: id, code, reason: error.message, until: untilMs ? new Date(untilMs).toISOString() : 'unknown' },
                "the vendor's quota or spend cap for this channel is reached: it takes no calls until the vendor's reset, or until an operator takes it back (PATCH /admin/channels/{id} with disabled false)",
              );
            }
            throw error;
          } finally {
            metrics.channelInFlight.dec({ channel: id });
          }
        },
        judge,
        gate,
      )
      .catch(async (error: unknown) => {
        throw error instanceof ChannelsCooling ? ((await everyOneExhausted(serving, model)) ?? error) : error;
      });
  }

  /**
   * Every channel of the model resting on an exhausted quota (found by an earlier call): the job
   * fails now, naming the vendor's reason, rather than waiting out a reset hours away. Read only
   * when the router found no channel to call, so a call that goes through costs nothing more.
   */
  async function everyOneExhausted(serving: LiveChannel[], model: string): Promise<UpstreamError | undefined> {
    const health = await readHealth(
      settings.redis,
      settings.prefix,
      serving.map((c) => c.record),
    ).catch(() => undefined);
    const states = serving.map((c) => health?.get(c.record.id));
    if (!states.every((h) => h?.state === 'exhausted')) return undefined;
    const reasons = states.map((h) => h!.exhaustedReason ?? '').filter(Boolean);
    const [code = undefined] = reasons.map((r) => /^([A-Za-z_.]+):/.exec(r)?.[1]).filter((c) => c !== undefined);
    return new UpstreamError('quota-exhausted', `every channel serving ${model} has reached its vendor quota: ${reasons.join('; ')}`, {
      code,
      untilMs: Math.min(...states.map((h) => h!.openUntil ?? Number.POSITIVE_INFINITY)),
    });
  }

  return {
    /**
     * A call for a job of `queue`, on a channel that serves `model`, with that capability's adapter.
     * `gate`: the job's begin, asked in the same round trip as each pick of a channel.
     */
    call: <Q extends QueueName, T>(
      queue: Q,
      model: string,
      run: (upstream: Adapter<Q>, vendorModel: string) => Promise<T>,
      gate?: CallGate,
    ) => call(queue, model, (c, vendorModel) => run(adapterFor(c, queue), vendorModel), gate),
  };
}

export type UpstreamCalls = ReturnType<typeof createUpstreamCalls>;
