import type { Request } from 'express';
import { AppError } from '@relay/core';
import { nearestModel } from '@relay/jobs';
import { googleKey } from '../auth/authenticate.js';

/** Google serves the Gemini API under all three; @google/genai 3.x calls v1, 2.x v1beta. */
export const GEMINI_VERSIONS = ['v1', 'v1beta', 'v1alpha'] as const;
export type GeminiVersion = (typeof GEMINI_VERSIONS)[number];

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

/** Google's 404 for a model it does not serve (or not for this method), naming the nearest one it does. */
export function modelNotFound(version: GeminiVersion, model: string, known: readonly string[], method?: string) {
  const meant = nearestModel(model, known);
  return new AppError(
    'not_found',
    `models/${model} is not found for API version ${version}${method ? `, or is not supported for ${method}` : ''}` +
      (meant ? `; did you mean models/${meant}?` : ''),
  );
}
