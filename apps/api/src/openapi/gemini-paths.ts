import type { Catalog } from '@relay/core';
import { GEMINI_VERSIONS } from '@relay/jobs';
import { errors, googleSecurity, json, ok } from './parts.js';

const modelParam = (catalog: Catalog) => ({
  name: 'model',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: Object.keys(catalog.speechModels) },
});

export const pageParams = [
  {
    name: 'pageSize',
    in: 'query',
    description: 'Gemini callers: models per page (default 50, at most 1000)',
    schema: { type: 'integer', minimum: 0 },
  },
  { name: 'pageToken', in: 'query', description: "Gemini callers: the previous page's nextPageToken", schema: { type: 'string' } },
];

const countTokensOperation = (catalog: Catalog) => ({
  tags: ['speech'],
  summary: 'Count input tokens as the relay reserves them: one per character of text',
  description:
    "Free. The count is the synthesis's input reservation, never less than the upstream's own promptTokenCount (the charge uses the latter).",
  security: googleSecurity,
  parameters: [modelParam(catalog)],
  requestBody: { required: true, content: json('CountTokensRequest') },
  responses: { '200': ok('Gemini CountTokensResponse', 'CountTokensResponse'), ...errors('GoogleError', [400, 401, 404, 413, 415, 429]) },
});

const listOperation = {
  tags: ['models'],
  summary: 'Gemini models.list: the speech models, paged',
  security: googleSecurity,
  parameters: pageParams,
  responses: { '200': ok('Gemini ListModelsResponse', 'GeminiModelList'), ...errors('GoogleError', [400, 401, 429]) },
};

const getOperation = {
  tags: ['models'],
  summary: 'Gemini models.get: one speech model',
  security: googleSecurity,
  parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
  responses: { '200': ok('Gemini Model', 'GeminiModel'), ...errors('GoogleError', [401, 404, 429]) },
};

/**
 * Google's paths under every version it serves (v1 for @google/genai 3.x, v1beta for 2.x):
 * token counting and, under v1beta and v1alpha, the model resources (generation is the speech door's) (v1's
 * model paths are shared with OpenAI's listing: model-paths.ts).
 */
export function geminiPaths(catalog: Catalog) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const version of GEMINI_VERSIONS) {
    const route = `/${version}/models/:modelAction`;
    paths[`/${version}/models/{model}:countTokens`] = { 'x-express-route': route, post: countTokensOperation(catalog) };
    if (version === 'v1') continue;
    paths[`/${version}/models`] = { get: listOperation };
    paths[`/${version}/models/{model}`] = { get: getOperation };
  }
  return paths;
}
