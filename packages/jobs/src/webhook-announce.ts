import type { Queue } from 'bullmq';
import type { PlainJobOptions } from './bull-flows.js';
import type { RequestWebhook, WebhookEvent, WebhookStore } from './webhooks.js';

/** One message to one receiver: an account's endpoint, or the webhook a job's request named. */
export interface Delivery {
  to: { endpointId: string } | { url: string; accountId: string };
  event: WebhookEvent;
  messageId: string;
  payload: { type: WebhookEvent; timestamp: string; data: Record<string, unknown> };
  /** The traceparent of the job it tells of: its delivery is a span of that trace. */
  trace?: string;
}

export interface Subject {
  id: string;
  object: string;
}

/**
 * Queues webhook messages for the worker's delivery (Standard Webhooks signatures, retries with
 * backoff, a delivery log). The message id is stable per subject, event and receiver, and is the
 * delivery job's id: a second announcement of the same end is the same message, queued once.
 * Any process can announce (the api tells of jobs it cancelled, the worker of jobs that ended).
 */
export function webhookAnnouncer(queue: Queue<Delivery>, store: WebhookStore, retry: { attempts: number; backoffMs: number }) {
  const options: PlainJobOptions = {
    attempts: retry.attempts,
    backoff: { type: 'exponential', delay: retry.backoffMs, jitter: 0.3 },
    removeOnComplete: { age: 86_400 },
    removeOnFail: { age: 7 * 86_400 },
    stackTraceLimit: 1,
  };
  const message = (
    to: Delivery['to'],
    receiver: string,
    event: WebhookEvent,
    subject: Subject,
    data: Record<string, unknown>,
    trace?: string,
  ) => {
    const messageId = `msg_${subject.id}_${event.replace('.', '_')}_${receiver}`;
    const payload = { type: event, timestamp: new Date().toISOString(), data: { ...subject, ...data } };
    return queue.add('deliver', { to, event, messageId, payload, ...(trace ? { trace } : {}) }, { ...options, jobId: messageId });
  };
  return {
    /** To each endpoint of the account that wants `event`. */
    async toAccount(accountId: string, event: WebhookEvent, subject: Subject, data: Record<string, unknown>, trace?: string) {
      const endpoints = await store.forEvent(accountId, event);
      await Promise.all(endpoints.map((endpoint) => message({ endpointId: endpoint.id }, endpoint.id, event, subject, data, trace)));
    },
    /** To the webhook a job's request named, when it wants `event`. */
    async toRequest(
      webhook: RequestWebhook,
      accountId: string,
      event: WebhookEvent,
      subject: Subject,
      data: Record<string, unknown>,
      trace?: string,
    ) {
      if (!(webhook.events as readonly string[]).includes(event)) return;
      await message({ url: webhook.url, accountId }, 'request', event, subject, data, trace);
    },
  };
}

export type WebhookAnnouncer = ReturnType<typeof webhookAnnouncer>;
