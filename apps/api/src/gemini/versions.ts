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

/** Gemini v1's model resources, which OpenAI's `/v1/models` shares: there the credential decides. */
const SHARED_MODEL_PATH = /^\/v1\/models(?:\/[^/]+)?\/?$/;

/**
 * The dialect of a path no route answered: Google's under v1beta and v1alpha, and on the v1 model
 * paths both APIs share when the caller sent a Google credential; OpenAI's everywhere else under
 * /v1 (a Google key sent to an OpenAI path such as /v1/jobs/x/y still gets OpenAI's answer).
 */
export function googleDialect(req: Request): boolean {
  const version = /^\/(v1|v1beta|v1alpha)(?:\/|$)/.exec(req.path)?.[1] as GeminiVersion | undefined;
  if (version === undefined) return false;
  if (version !== 'v1') return true;
  return SHARED_MODEL_PATH.test(req.path) && speaksGoogle(version, req);
}
