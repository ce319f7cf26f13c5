import type { Request } from 'express';
import type { GeminiVersion } from '@relay/jobs';
import { googleKey } from '../auth/authenticate.js';

export { GEMINI_VERSIONS, modelNotFound, type GeminiVersion } from '@relay/jobs';

/**
 * `GET /v1/models` is both OpenAI's model listing and Gemini v1's. The credential tells them
 * apart: Google's SDKs and docs send `x-goog-api-key` or `?key=`, OpenAI's clients
 * `Authorization: Bearer`. Under v1beta and v1alpha every caller is a Gemini caller.
 */
export const speaksGoogle = (version: GeminiVersion, req: Request) => version !== 'v1' || googleKey(req) !== undefined;

/** Whether a request's errors speak Google: under v1beta/v1alpha, or under v1 with a Google credential. */
export function googleDialect(req: Request): boolean {
  const version = /^\/(v1|v1beta|v1alpha)(?:\/|$)/.exec(req.path)?.[1] as GeminiVersion | undefined;
  return version !== undefined && speaksGoogle(version, req);
}
