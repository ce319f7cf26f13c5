import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What the workers do: job time by model and outcome, upstream calls, pauses, bytes, money. */
export function createWorkerMetrics(registry: Registry) {
  const registers = [registry];
  return {
    jobDuration: new Histogram({
      name: 'relay_job_duration_seconds',
      help: 'Processing time of one job attempt, by queue, model and outcome',
      labelNames: ['queue', 'model', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120, 300],
      registers,
    }),
    jobWait: new Histogram({
      name: 'relay_job_wait_seconds',
      help: 'Time a job waited in its queue before its first attempt started',
      labelNames: ['queue'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 900],
      registers,
    }),
    upstreamCalls: new Counter({
      name: 'relay_upstream_calls_total',
      help: 'Calls to upstreams by upstream and HTTP status (or timeout / network)',
      labelNames: ['upstream', 'status'],
      registers,
    }),
    channelCalls: new Counter({
      name: 'relay_channel_calls_total',
      help: 'Upstream calls per channel by outcome: ok (an answer or a content refusal), fail (5xx, timeout, reset), limited (429), exhausted (a quota or spend cap), auth (key refused)',
      labelNames: ['channel', 'outcome'],
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'relay_upstream_errors_total',
      help: "Upstream errors per channel by the vendor's class: rate_limited, quota_exhausted, auth, misconfigured, content_refused, bad_request, transient, unusable",
      labelNames: ['channel', 'class'],
      registers,
    }),
    channelLatency: new Histogram({
      name: 'relay_channel_call_seconds',
      help: 'Upstream call time per channel',
      labelNames: ['channel'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120],
      registers,
    }),
    channelInFlight: new Gauge({
      name: 'relay_channel_in_flight',
      help: 'Upstream calls this worker runs now, per channel',
      labelNames: ['channel'],
      registers,
    }),
    channelOpen: new Gauge({
      name: 'relay_channel_open',
      help: "1 while the channel's breaker is open (cooling after failures or a 429), as this worker last saw it",
      labelNames: ['channel'],
      registers,
    }),
    channelsVersion: new Gauge({
      name: 'relay_channels_version',
      help: 'The version of the channel list this worker runs with (it moves with every change)',
      registers,
    }),
    channelDisabled: new Counter({
      name: 'relay_channel_disabled_total',
      help: 'Channels disabled because the upstream refused their key (401/403)',
      labelNames: ['channel'],
      registers,
    }),
    retries: new Counter({
      name: 'relay_job_retries_total',
      help: 'Job attempts that failed and will be tried again',
      labelNames: ['queue'],
      registers,
    }),
    rateLimitPauses: new Counter({
      name: 'relay_rate_limit_pauses_total',
      help: 'Jobs put off (delayed, no attempt spent) because every channel serving their model was cooling (429s, open breakers)',
      labelNames: ['queue'],
      registers,
    }),
    storeRetries: new Counter({
      name: 'relay_store_retries_total',
      help: 'Failed tries to put a paid result into the store that were tried again',
      labelNames: ['queue'],
      registers,
    }),
    reservationsSwept: new Counter({
      name: 'relay_reservations_swept_total',
      help: 'Reservations given back because their job never ran (api died between reserving and queueing)',
      registers,
    }),
    retentionDeleted: new Counter({
      name: 'relay_retention_deleted_total',
      help: 'Stored objects deleted because they passed RETENTION_DAYS (files/) or tuning.worker.inputRetentionDays (inputs/)',
      labelNames: ['prefix'],
      registers,
    }),
    bytesStored: new Counter({
      name: 'relay_bytes_stored_total',
      help: 'Bytes of results written to the store',
      labelNames: ['queue'],
      registers,
    }),
    charged: new Counter({
      name: 'relay_charged_micro_units_total',
      help: 'Amounts charged to accounts, in micro-units',
      labelNames: ['model'],
      registers,
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** Called by adapters with each upstream answer's status (or why there was none). */
export type CallObserver = (status: string) => void;
