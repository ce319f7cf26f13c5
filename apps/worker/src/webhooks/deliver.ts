import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Queue, Worker, type Job } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { context } from '@opentelemetry/api';
import {
  contextOf,
  inSpan,
  policyLookup,
  queueConnection,
  RefusedAddress,
  refusedLink,
  SpanKind,
  type Logger,
  type UrlPolicy,
} from '@relay/core';
import { runWithRelayScripts, useRelayScripts, webhookAnnouncer, WEBHOOKS_QUEUE, type Delivery, type WebhookStore } from '@relay/jobs';

export interface WebhookSettings {
  redisUrl: string;
  /** BullMQ's prefix, as the job queues use. */
  prefix: string;
  store: WebhookStore;
  urls: UrlPolicy;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  log: Logger;
}

/** The endpoint answered, but not with a 2xx: try again later. */
class EndpointFailed extends Error {
  override name = 'EndpointFailed';
}

/** One signed POST, held to the URL policy at connect time; resolves to the status. */
function post(url: URL, body: string, headers: Record<string, string>, urls: UrlPolicy, timeoutMs: number): Promise<number> {
  const refused = refusedLink(url, urls);
  if (refused) return Promise.reject(new RefusedAddress(refused));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup: policyLookup(urls, url),
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Webhooks of async jobs and batches: when a job asked for with `Prefer: respond-async` or a
 * batch ends, each endpoint of its account that wants the event gets one message, signed as
 * Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature), through a BullMQ
 * queue that retries with exponential backoff and survives restarts. The message id is stable
 * per subject, event and endpoint, so a retry (or a second announcement) is the same message to
 * a receiver that dedupes, and is queued once.
 */
export function startWebhookDelivery(settings: WebhookSettings) {
  const connection = queueConnection(settings.redisUrl, 'patient');
  const queue = new Queue<Delivery>(WEBHOOKS_QUEUE, { connection, prefix: settings.prefix });
  queue.on('error', (err) => settings.log.warn({ err: err.message }, 'webhook queue connection error'));
  void useRelayScripts(queue);

  const worker = new Worker<Delivery>(
    WEBHOOKS_QUEUE,
    async (job: Job<Delivery>) => {
      const { to, event, messageId, payload } = job.data;
      // an account's endpoint (gone: nothing to send), or the webhook a request named, signed with its account's request secret
      const endpoint =
        'endpointId' in to
          ? await settings.store.get(to.endpointId)
          : { id: `request:${to.accountId}`, url: to.url, secret: await settings.store.requestSecret(to.accountId) };
      if (!endpoint) return 'endpoint deleted';
      const endpointId = endpoint.id;
      const body = JSON.stringify(payload);
      const sentAt = new Date();
      const headers = {
        'webhook-id': messageId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': new Webhook(endpoint.secret).sign(messageId, sentAt, body),
      };
      const started = performance.now();
      let status = 0;
      let error: string | undefined;
      try {
        // the delivery is a span of the trace of the job it tells of
        status = await context.with(contextOf(job.data.trace), () =>
          inSpan(
            'relay.webhook',
            { 'relay.webhook.event': event, 'relay.attempt': job.attemptsMade + 1 },
            async (span) => {
              const answered = await post(new URL(endpoint.url), body, headers, settings.urls, settings.timeoutMs);
              span.setAttribute('http.response.status_code', answered);
              return answered;
            },
            SpanKind.CLIENT,
          ),
        );
        if (status < 200 || status >= 300) error = `answered HTTP ${status}`;
      } catch (cause) {
        error = (cause as Error).message;
      }
      await settings.store.record(endpointId, {
        at: sentAt.getTime(),
        event,
        messageId,
        attempt: job.attemptsMade + 1,
        status,
        ms: Math.round(performance.now() - started),
        ...(error ? { error } : {}),
      });
      if (error) throw new EndpointFailed(`${endpoint.url}: ${error}`);
      return status;
    },
    // started below, once its connection runs the relay's scripts (issue 35)
    { connection: queueConnection(settings.redisUrl, 'patient'), prefix: settings.prefix, concurrency: 16, autorun: false },
  );
  worker.on('error', (err) => settings.log.warn({ err: err.message }, 'webhook worker connection error'));
  runWithRelayScripts(worker);
  worker.on('failed', (job, err) =>
    settings.log.warn(
      { webhook: job && ('endpointId' in job.data.to ? job.data.to.endpointId : 'request'), attempt: job?.attemptsMade, err: err.message },
      'webhook delivery failed',
    ),
  );

  const announcer = webhookAnnouncer(queue, settings.store, settings);

  return {
    announcer,
    /** `subject` ended: the account's endpoints that want `event` get `data` (with the subject's id and object). */
    announce: announcer.toAccount,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}

export type WebhookDeliveryService = ReturnType<typeof startWebhookDelivery>;
