import type { AppError } from '@relay/core';
import type { Doors } from './doors/registry.js';
import type { QueueName, RelayJob } from './queues.js';
import type { WebhookAnnouncer } from './webhook-announce.js';
import type { WebhookEvent } from './webhooks.js';

export type AnnouncedEnd = { outcome: 'completed'; result: unknown } | { outcome: 'failed'; error: AppError };

/**
 * A job's end, to those who asked to hear of it: the account's endpoints for a job asked for
 * asynchronously, and the webhook its request named (`Relay-Webhook`), which also gets the
 * answer, as its door writes a batch line's (links to the stored files, never blobs).
 */
export async function announceJobEnd(announcer: WebhookAnnouncer, doors: Doors, queue: QueueName, job: RelayJob, end: AnnouncedEnd) {
  const { meta } = job.data;
  if (!job.id) return;
  const event: WebhookEvent =
    end.outcome === 'completed' ? 'job.completed' : end.error.code === 'cancelled' ? 'job.cancelled' : 'job.failed';
  const subject = { id: job.id, object: 'relay.job' };
  const told = {
    status: event.slice('job.'.length),
    created: Math.floor(job.timestamp / 1000),
    ...(end.outcome === 'failed' ? { error: { code: end.error.code, message: end.error.message } } : {}),
  };
  const announced: Array<Promise<unknown>> = [];
  if (meta.lane === 'async') announced.push(announcer.toAccount(meta.accountId, event, subject, told, meta.trace));
  if (meta.webhook) {
    const answer = end.outcome === 'completed' ? await doors.ofJob(queue, meta).line(job.data, end.result, meta.webhook.base) : undefined;
    announced.push(
      announcer.toRequest(meta.webhook, meta.accountId, event, subject, { ...told, ...(answer ? { answer } : {}) }, meta.trace),
    );
  }
  await Promise.all(announced);
}
