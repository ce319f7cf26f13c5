import { readArkAnswer } from './answer.js';
import type { ArkStreamEvent } from './stream-events.js';

/**
 * A whole JSON answer to a `stream: true` call (a vendor that ignored `stream`) as the events a
 * stream would have sent: each slot in order, then completed with the answer's usage.
 */
export function* eventsOfAnswer(body: unknown, sentModel: string, secret?: string): Generator<ArkStreamEvent> {
  const { model, created, data, usage } = readArkAnswer(body, sentModel, secret);
  let delivered = 0;
  for (const [index, slot] of data.entries()) {
    if ('error' in slot) {
      yield { type: 'image_generation.partial_failed', model, created, image_index: index, error: slot.error };
      continue;
    }
    delivered += 1;
    yield { type: 'image_generation.partial_succeeded', model, created, image_index: index, ...slot };
  }
  yield {
    type: 'image_generation.completed',
    model,
    created,
    usage: { ...usage, generated_images: usage?.generated_images ?? delivered },
  };
}
