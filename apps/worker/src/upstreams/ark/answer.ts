import { UpstreamError } from '../upstream-error.js';
import { toUpstreamError } from './errors.js';
import { arkWireResponseSchema, type ArkImageResponse } from './schema.js';

/**
 * A 200 answer read as the relay needs it. Images are what was paid for: an answer that carries
 * any is read whatever else it lacks (the model sent stands for a missing `model`, the time of
 * arrival for `created`). A 200 that carries an `error` and no data is that error; one that
 * carries neither is worth another call, since nothing was delivered.
 */
export function readArkAnswer(body: unknown, sentModel: string, secret?: string, now = Date.now()): ArkImageResponse {
  const parsed = arkWireResponseSchema.safeParse(body);
  if (!parsed.success) {
    if (body && typeof body === 'object' && 'error' in body) throw toUpstreamError(200, body, null, secret);
    throw new UpstreamError('transient', 'upstream answered 200 with neither images nor an error', { status: 200 });
  }
  const { model, created, ...rest } = parsed.data;
  return { model: model ?? sentModel, created: created ?? Math.floor(now / 1000), ...rest };
}
