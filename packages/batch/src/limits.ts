import { DEFAULT_JSON_SHAPE, type JsonShapeLimits } from '@relay/core';
import type { BatchEndpoint } from './endpoints.js';
import type { BatchSettings } from './records.js';

/**
 * The pre-scan limits a line is held to: those of its endpoint's synchronous body (the longest
 * string a field takes: an inline image, or a text part with every character escaped), so a
 * hostile line costs as little to refuse as a hostile request.
 */
export function lineShape(
  endpoint: Pick<BatchEndpoint, 'maxStringBytes'>,
  settings: Pick<BatchSettings, 'inputImageMaxBytes'>,
): JsonShapeLimits {
  return { ...DEFAULT_JSON_SHAPE, maxStringBytes: endpoint.maxStringBytes(settings) };
}
