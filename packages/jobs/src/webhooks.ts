import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** What an endpoint may be told: the end of jobs asked for with `Prefer: respond-async`, and of batches. */
export const WEBHOOK_EVENTS = [
  'job.completed',
  'job.failed',
  'job.cancelled',
  'batch.completed',
  'batch.failed',
  'batch.cancelled',
  'batch.expired',
] as const;
export const webhookEventSchema = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.output<typeof webhookEventSchema>;

export const webhookBody = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).max(2048),
    events: z.array(webhookEventSchema).min(1).max(WEBHOOK_EVENTS.length).optional().describe('Default: every event'),
    description: z.string().max(200).optional(),
  })
  .meta({ id: 'WebhookBody' });

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    url: z.string(),
    events: z.array(webhookEventSchema),
    description: z.string(),
    createdAt: z.number().int(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;

/** The answer to a new endpoint: the signing secret, shown this once. */
export const newWebhookSchema = webhookEndpointSchema.extend({ secret: z.string() }).meta({ id: 'NewWebhook' });

export const webhookDeliverySchema = z.object({
  at: z.number().int(),
  event: webhookEventSchema,
  messageId: z.string(),
  attempt: z.number().int(),
  /** The endpoint's HTTP status; 0 when it was not reached. */
  status: z.number().int(),
  ms: z.number().int(),
  error: z.string().optional(),
});
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;
export const webhookDeliveriesSchema = z.object({ deliveries: z.array(webhookDeliverySchema) }).meta({ id: 'WebhookDeliveries' });

/** What a per-request webhook (the `Relay-Webhook` header) may be told: its job's end. */
export const REQUEST_WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.cancelled'] as const satisfies readonly WebhookEvent[];
export const requestWebhookEventSchema = z.enum(REQUEST_WEBHOOK_EVENTS);

/** A job's own webhook, kept in its meta: where, for which ends, and the base its answer's links use. */
export const requestWebhookSchema = z.strictObject({
  url: z.string().max(2048),
  events: z.array(requestWebhookEventSchema),
  base: z.string().max(2048),
});
export type RequestWebhook = z.output<typeof requestWebhookSchema>;

export const WEBHOOK_ID = /^wh_[0-9a-f]{16}$/;
/** The BullMQ queue deliveries go through (retries with backoff, survives restarts). */
export const WEBHOOKS_QUEUE = 'webhooks';
/** Attempts kept per endpoint in its delivery log. */
const LOG_LENGTH = 200;

/**
 * Webhook endpoints per account, shared by the api (admin routes) and the worker (delivery):
 * a hash per endpoint (its secret included: it signs every message), a set per account, and a
 * capped stream of delivery attempts per endpoint.
 */
export function createWebhookStore(redis: Redis, prefix: string) {
  const endpointKey = (id: string) => `${prefix}:webhook:${id}`;
  const accountKey = (accountId: string) => `${prefix}:webhooks:${accountId}`;
  const logKey = (id: string) => `${prefix}:webhook:${id}:deliveries`;
  const requestSecretKey = (accountId: string) => `${prefix}:account:${accountId}:request-webhook-secret`;
  const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
  const fromHash = (h: Record<string, string>): WebhookEndpoint & { secret: string } => ({
    id: h.id!,
    accountId: h.accountId!,
    url: h.url!,
    events: webhookEventSchema
      .array()
      .catch([...WEBHOOK_EVENTS])
      .parse((h.events ?? '').split(',').filter(Boolean)),
    description: h.description ?? '',
    createdAt: Number(h.createdAt),
    secret: h.secret!,
  });

  return {
    async create(accountId: string, body: z.output<typeof webhookBody>) {
      const endpoint = {
        id: `wh_${randomBytes(8).toString('hex')}`,
        accountId,
        url: body.url,
        events: body.events ?? [...WEBHOOK_EVENTS],
        description: body.description ?? '',
        createdAt: Date.now(),
        secret: newSecret(),
      };
      await redis
        .multi()
        .hset(endpointKey(endpoint.id), { ...endpoint, events: endpoint.events.join(',') })
        .sadd(accountKey(accountId), endpoint.id)
        .exec();
      return endpoint;
    },

    /** The endpoint with its secret (delivery), or undefined. */
    async get(id: string) {
      if (!WEBHOOK_ID.test(id)) return undefined;
      const h = await redis.hgetall(endpointKey(id));
      return h.id ? fromHash(h) : undefined;
    },

    async list(accountId: string): Promise<WebhookEndpoint[]> {
      const ids = await redis.smembers(accountKey(accountId));
      const found = await Promise.all(ids.map((id) => redis.hgetall(endpointKey(id))));
      return found
        .filter((h) => h.id)
        .map((h) => {
          const { secret: _secret, ...endpoint } = fromHash(h);
          return endpoint;
        })
        .sort((a, b) => a.createdAt - b.createdAt);
    },

    /** Endpoints of the account that want `event`. */
    async forEvent(accountId: string, event: WebhookEvent) {
      const ids = await redis.smembers(accountKey(accountId));
      const found = await Promise.all(ids.map((id) => redis.hgetall(endpointKey(id))));
      return found
        .filter((h) => h.id)
        .map(fromHash)
        .filter((e) => e.events.includes(event));
    },

    async remove(id: string) {
      const endpoint = await this.get(id);
      if (!endpoint) return undefined;
      await redis.multi().del(endpointKey(id), logKey(id)).srem(accountKey(endpoint.accountId), id).exec();
      return endpoint;
    },

    /**
     * The account's secret for the webhooks its requests name (`Relay-Webhook`): made at the first
     * read, the same from then on, until the operator rotates it.
     */
    async requestSecret(accountId: string): Promise<string> {
      const key = requestSecretKey(accountId);
      await redis.set(key, newSecret(), 'NX');
      return (await redis.get(key))!;
    },

    async rotateRequestSecret(accountId: string): Promise<string> {
      const secret = newSecret();
      await redis.set(requestSecretKey(accountId), secret);
      return secret;
    },

    async record(id: string, delivery: WebhookDelivery) {
      await redis.xadd(logKey(id), 'MAXLEN', '~', LOG_LENGTH, '*', 'delivery', JSON.stringify(delivery));
    },

    /** The latest attempts, newest first. */
    async deliveries(id: string, limit = 50): Promise<WebhookDelivery[]> {
      const entries = await redis.xrevrange(logKey(id), '+', '-', 'COUNT', limit);
      return entries.map(([, fields]) => webhookDeliverySchema.parse(JSON.parse(fields[1] ?? '{}')));
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
