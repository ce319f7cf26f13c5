import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { type Catalog, ownValue, parseOrThrow } from '@relay/core';
import { countTokensResponseSchema, errorResponses, geminiModelListSchema, geminiModelSchema, MAX_PART_CHARS, SECURITY } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, GOOGLE_KEYS } from '../auth/authenticate.js';
import type { ApiConfig } from '../config.js';
import { jsonBody } from '../http/json-body.js';
import { geminiModel, geminiModels, modelPath } from '../models/catalog-models.js';
import { jsonAnswer, jsonRequest } from '../openapi/parts.js';
import { countTokens, countTokensBody, TOKEN_COUNT_LABEL } from './count-tokens.js';
import { pageOf, pageQuery } from './paging.js';
import { GEMINI_VERSIONS, modelNotFound, speaksGoogle } from './versions.js';

export interface GeminiDeps {
  config: ApiConfig;
  catalog: Catalog;
  accounts: AccountsStore;
  /** The key's rate limit these routes count against. */
  limit: RequestHandler;
}

const COUNT_TOKENS = ':countTokens';

/** The model of a :countTokens path: one of the catalog's speech models. */
const speechModelPath = (catalog: Catalog) => z.object({ model: z.enum(Object.keys(catalog.speechModels) as [string, ...string[]]) });

/**
 * Gemini's model resources and :countTokens under every version Google serves, for the
 * catalog's speech models. (generateContent and streamGenerateContent are the speech routes.)
 * Its routes answer in Google's dialect, their errors too.
 */
export function geminiRoutes(deps: GeminiDeps) {
  const router = express.Router();
  const admit = [authenticate(deps.accounts, GOOGLE_KEYS), deps.limit];
  const speechModel = speechModelPath(deps.catalog);
  for (const version of GEMINI_VERSIONS) {
    // GET /v1/models is OpenAI's listing too: an OpenAI caller passes on to the OpenAI routes
    const geminiCaller = (req: Request, res: Response, next: NextFunction) => {
      if (!speaksGoogle(version, req)) return next('route');
      res.locals.dialect = 'google';
      next();
    };

    router.get(`/${version}/models`, geminiCaller, ...admit, (req, res) => {
      const { page, nextPageToken } = pageOf(geminiModels(deps.catalog), parseOrThrow(pageQuery, req.query));
      res.json({ models: page, ...(nextPageToken ? { nextPageToken } : {}) });
    });

    router.get(`/${version}/models/:model`, geminiCaller, ...admit, (req, res) => {
      const id = parseOrThrow(modelPath, req.params).model;
      const model = ownValue(deps.catalog.speechModels, id);
      if (!model) throw modelNotFound(version, id, Object.keys(deps.catalog.speechModels));
      res.json(geminiModel(id, model));
    });

    router.post(
      `/${version}/models/:modelAction`,
      // generateContent and streamGenerateContent go on to the speech routes
      (req: Request, res: Response, next: NextFunction) => {
        if (!String(req.params.modelAction).endsWith(COUNT_TOKENS)) return next('route');
        res.locals.dialect = 'google';
        next();
      },
      ...admit,
      (req: Request, _res: Response, next: NextFunction) => {
        const id = String(req.params.modelAction).slice(0, -COUNT_TOKENS.length);
        next(
          speechModel.safeParse({ model: id }).success
            ? undefined
            : modelNotFound(version, id, Object.keys(deps.catalog.speechModels), 'countTokens'),
        );
      },
      jsonBody(deps.config.tuning.bodyLimitBytes, 6 * MAX_PART_CHARS),
      (req: Request, res: Response) =>
        void res.set('Relay-Token-Count', TOKEN_COUNT_LABEL).json(countTokens(parseOrThrow(countTokensBody, req.body))),
    );
  }
  return router;
}

/**
 * The routes above under every version (v1 for @google/genai 3.x, v1beta for 2.x); v1's model
 * paths are shared with OpenAI's listing (models/routes.ts), generation is the speech door's.
 */
export function geminiPaths(catalog: Catalog): ZodOpenApiPathsObject {
  const gemini = { security: SECURITY.google };
  const countPath = speechModelPath(catalog);
  const paths: ZodOpenApiPathsObject = {};
  for (const version of GEMINI_VERSIONS) {
    paths[`/${version}/models/{model}:countTokens`] = {
      'x-express-route': `/${version}/models/:modelAction`,
      post: {
        ...gemini,
        tags: ['speech'],
        summary: 'Count input tokens as the relay reserves them: one per character of text',
        description:
          "Free. The count is the synthesis's input reservation, never less than the upstream's own promptTokenCount (the charge uses the latter).",
        requestParams: { path: countPath },
        requestBody: jsonRequest(countTokensBody),
        responses: {
          '200': jsonAnswer('Gemini CountTokensResponse', countTokensResponseSchema),
          ...errorResponses('google', [400, 401, 404, 413, 415, 429]),
        },
      },
    };
    if (version === 'v1') continue;
    paths[`/${version}/models`] = {
      get: {
        ...gemini,
        tags: ['models'],
        summary: 'Gemini models.list: the speech models, paged',
        requestParams: { query: pageQuery },
        responses: { '200': jsonAnswer('Gemini ListModelsResponse', geminiModelListSchema), ...errorResponses('google', [400, 401, 429]) },
      },
    };
    paths[`/${version}/models/{model}`] = {
      get: {
        ...gemini,
        tags: ['models'],
        summary: 'Gemini models.get: one speech model',
        requestParams: { path: modelPath },
        responses: { '200': jsonAnswer('Gemini Model', geminiModelSchema), ...errorResponses('google', [401, 404, 429]) },
      },
    };
  }
  return paths;
}
