import type { Request } from 'express';
import { AppError, checkUrl, type UrlPolicy } from '@relay/core';
import { REQUEST_WEBHOOK_EVENTS, requestWebhookEventSchema, type RequestWebhook } from '@relay/jobs';

/**
 * The webhook a generation request names for its job's end (`Relay-Webhook: <url>`, and
 * optionally `Relay-Webhook-Events: job.completed,job.failed,job.cancelled`, all by default),
 * held to the URL policy now (and again at delivery): a 400 naming the header otherwise.
 */
export async function parseRelayWebhook(req: Request, urls: UrlPolicy): Promise<Omit<RequestWebhook, 'base'> | undefined> {
  const url = req.get('relay-webhook');
  const listed = req.get('relay-webhook-events');
  if (url === undefined) {
    if (listed !== undefined)
      throw new AppError('invalid_request', 'Relay-Webhook-Events needs Relay-Webhook', { param: 'Relay-Webhook-Events' });
    return undefined;
  }
  if (url.length > 2048) throw new AppError('invalid_request', 'Relay-Webhook must be at most 2048 characters', { param: 'Relay-Webhook' });
  const verdict = await checkUrl(url, urls);
  if (!verdict.ok) throw new AppError('invalid_request', `Relay-Webhook ${verdict.reason}`, { param: 'Relay-Webhook' });
  const events = (listed ?? REQUEST_WEBHOOK_EVENTS.join(','))
    .split(',')
    .map((event) => event.trim())
    .filter(Boolean);
  const unknown = events.filter((event) => !requestWebhookEventSchema.safeParse(event).success);
  if (unknown.length || events.length === 0) {
    throw new AppError('invalid_request', `Relay-Webhook-Events takes ${REQUEST_WEBHOOK_EVENTS.join(', ')}; got ${listed?.slice(0, 100)}`, {
      param: 'Relay-Webhook-Events',
    });
  }
  return { url, events: [...new Set(events)] as RequestWebhook['events'] };
}
