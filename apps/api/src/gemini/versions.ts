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

/** Gemini v1's own resources (the models both APIs share among them): there the credential decides. */
const GOOGLE_V1_RESOURCE = /^\/v1\/(?:models|cachedContents|tunedModels|corpora|operations)(?:[/:]|$)/;

/**
 * The dialect of a path no route answered: Google's under v1beta and v1alpha; under /v1, on
 * Gemini's own resources (its model paths, which OpenAI's listing shares, /v1/cachedContents,
 * ...) the caller's credential decides, and everywhere else it is OpenAI's (a Google key sent to
 * /v1/jobs/x/y still gets OpenAI's answer).
 */
export function googleDialect(req: Request): boolean {
  const version = /^\/(v1|v1beta|v1alpha)(?:\/|$)/.exec(req.path)?.[1] as GeminiVersion | undefined;
  if (version === undefined) return false;
  if (version !== 'v1') return true;
  return GOOGLE_V1_RESOURCE.test(req.path) && speaksGoogle(version, req);
}
