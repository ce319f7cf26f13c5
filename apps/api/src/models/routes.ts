import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, parseOrThrow, type Catalog } from '@relay/core';
import {
  geminiModelListSchema,
  geminiModelSchema,
  googleErrorSchema,
  openAIErrorSchema,
  openAIModelListSchema,
  openAIModelSchema,
  type OpenAIModelList,
} from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import { pageQuery } from '../gemini/paging.js';
import { ANY_KEY_SECURITY } from '../openapi/parts.js';
import { modelPath, openAIModelOf, openAIModels } from './catalog-models.js';

export interface ModelsDeps {
  catalog: Catalog;
  accounts: AccountsStore;
  /** The key's rate limit these routes count against. */
  limit: RequestHandler;
}

/**
 * OpenAI's model listing (`models.list()`, `models.retrieve()`), from the catalog. Gemini
 * callers of the same paths are answered by the Gemini routes, mounted before these.
 */
export function modelsRoutes(deps: ModelsDeps) {
  const router = express.Router();
  const admit = [authenticate(deps.accounts, OPENAI_KEYS), deps.limit];
  const list: OpenAIModelList = { object: 'list', data: openAIModels(deps.catalog) };

  router.get('/v1/models', ...admit, (_req, res) => void res.json(list));

  router.get('/v1/models/:model', ...admit, (req, res) => {
    const id = parseOrThrow(modelPath, req.params).model;
    const model = openAIModelOf(deps.catalog, id);
    if (!model) throw new AppError('not_found', `The model '${id}' does not exist`, { param: 'model' });
    res.json(model);
  });
  return router;
}

/** One of two bodies, by the dialect the caller's credential chose. */
const either = (description: string, openai: z.ZodType, google: z.ZodType): ZodOpenApiResponseObject => ({
  description,
  content: { 'application/json': { schema: z.xor([openai, google]) } },
});
const errors = (description: string) => either(description, openAIErrorSchema, googleErrorSchema);

const DIALECT =
  "OpenAI clients (Authorization: Bearer) get OpenAI's shape; Google clients (x-goog-api-key or ?key=) get Gemini's, as under /v1beta.";

/** GET /v1/models and /v1/models/{model}: OpenAI's model listing and Gemini v1's (gemini/routes.ts), told apart by the credential. */
export const modelPaths: ZodOpenApiPathsObject = {
  '/v1/models': {
    get: {
      tags: ['models'],
      summary: 'The models a key may use',
      description: `Every catalog model (images and speech) for OpenAI clients; the speech models, paged, for Google clients (pageSize, pageToken). ${DIALECT}`,
      security: ANY_KEY_SECURITY,
      requestParams: { query: pageQuery },
      responses: {
        '200': either('OpenAI list, or Gemini ListModelsResponse', openAIModelListSchema, geminiModelListSchema),
        '400': errors('A bad pageSize or pageToken (Gemini callers)'),
        '401': errors('Missing, wrong or revoked key'),
        '429': errors('This key is over its rate limit (Retry-After)'),
      },
    },
  },
  '/v1/models/{model}': {
    get: {
      tags: ['models'],
      summary: 'One model',
      description: DIALECT,
      security: ANY_KEY_SECURITY,
      requestParams: { path: modelPath },
      responses: {
        '200': either('OpenAI Model, or Gemini Model', openAIModelSchema, geminiModelSchema),
        '401': errors('Missing, wrong or revoked key'),
        '404': errors('No such model (for Gemini callers: no such speech model)'),
        '429': errors('This key is over its rate limit (Retry-After)'),
      },
    },
  },
};
