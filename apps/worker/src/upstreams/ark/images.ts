import type { CallObserver } from '../../metrics.js';
import { postJson, type UpstreamTarget } from '../post-json.js';
import { kindOfStatus, parseRetryAfter, UpstreamError } from '../upstream-error.js';
import { arkErrorSchema, arkImageResponseSchema, type ArkImageRequest, type ArkImageResponse } from './schema.js';

/** The one capability the image queue needs from an upstream. */
export interface ImageGeneration {
  generate(body: ArkImageRequest): Promise<ArkImageResponse>;
}

const MODERATION = /Sensitive|Risk/;

/** Ark's error body keeps the vendor's code; moderation and parameter refusals keep it for the client. */
function toUpstreamError(status: number, body: unknown, retryAfter: string | null): UpstreamError {
  const parsed = arkErrorSchema.safeParse(body);
  const code = parsed.success ? parsed.data.error.code : undefined;
  const message = parsed.success ? parsed.data.error.message : `upstream answered HTTP ${status}`;
  const param = parsed.success && parsed.data.error.param ? parsed.data.error.param : undefined;
  return new UpstreamError(kindOfStatus(status), message, {
    status,
    code,
    param,
    retryAfterMs: parseRetryAfter(retryAfter),
    moderation: isModerationCode(code),
  });
}

export function createArkImages(upstream: UpstreamTarget, observe?: CallObserver): ImageGeneration {
  const url = `${upstream.baseUrl}/images/generations`;
  return {
    async generate(body) {
      const answer = await postJson(url, body, { authorization: `Bearer ${upstream.apiKey}` }, upstream.timeoutMs, observe);
      if (answer.status !== 200) throw toUpstreamError(answer.status, answer.body, answer.headers.get('retry-after'));
      const parsed = arkImageResponseSchema.safeParse(answer.body);
      if (!parsed.success) throw new UpstreamError('transient', 'upstream answered 200 with an unreadable body', { status: 200 });
      return parsed.data;
    },
  };
}

export const isModerationCode = (code: string | undefined) => !!code && MODERATION.test(code);
