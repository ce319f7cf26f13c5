import { UpstreamError } from '../upstream-error.js';
import { toUpstreamError } from './errors.js';
import { arkImageResponseSchema } from './schema.js';
import type { ArkStreamEvent } from './stream-events.js';

/**
 * A whole JSON answer to a `stream: true` call (a vendor that ignored `stream`) as the events a
 * stream would have sent: each slot in order, then completed with the answer's usage.
 */
export function* eventsOfAnswer(body: unknown): Generator<ArkStreamEvent> {
  const parsed = arkImageResponseSchema.safeParse(body);
  if (!parsed.success) {
    if (body && typeof body === 'object' && 'error' in body) throw toUpstreamError(200, body, null);
    throw new UpstreamError('transient', 'upstream answered 200 with neither an event stream nor a readable body', { status: 200 });
  }
  const { model, created, data, usage } = parsed.data;
  let delivered = 0;
  for (const [index, slot] of data.entries()) {
    if ('error' in slot) {
      yield { type: 'image_generation.partial_failed', model, created, image_index: index, error: slot.error };
      continue;
    }
    if (slot.url === undefined && slot.b64_json === undefined) continue;
    delivered += 1;
    yield { type: 'image_generation.partial_succeeded', model, created, image_index: index, ...slot };
  }
  yield {
    type: 'image_generation.completed',
    model,
    created,
    usage: usage ?? { generated_images: delivered, output_tokens: 0, total_tokens: 0 },
  };
}
