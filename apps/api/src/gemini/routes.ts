import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type Catalog, ownValue, parseOrThrow } from '@relay/core';
import { MAX_PART_CHARS } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, GOOGLE_KEYS } from '../auth/authenticate.js';
import type { ApiConfig } from '../config.js';
import { jsonBody } from '../http/json-body.js';
import { geminiModel, geminiModels } from '../models/catalog-models.js';
import { countTokens, countTokensBody } from './count-tokens.js';
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

/**
 * Gemini's model resources and :countTokens under every version Google serves, for the
 * catalog's speech models. (generateContent and streamGenerateContent are the speech routes.)
 * The app renders this router's errors in Google's shape.
 */
export function geminiRoutes(deps: GeminiDeps) {
  const router = express.Router();
  const admit = [authenticate(deps.accounts, GOOGLE_KEYS), deps.limit];
  for (const version of GEMINI_VERSIONS) {
    // GET /v1/models is OpenAI's listing too: an OpenAI caller passes on to the OpenAI routes
    const geminiCaller = (req: Request, _res: Response, next: NextFunction) => next(speaksGoogle(version, req) ? undefined : 'route');

    router.get(`/${version}/models`, geminiCaller, ...admit, (req, res) => {
      const { page, nextPageToken } = pageOf(geminiModels(deps.catalog), parseOrThrow(pageQuery, req.query));
      res.json({ models: page, ...(nextPageToken ? { nextPageToken } : {}) });
    });

    router.get(`/${version}/models/:model`, geminiCaller, ...admit, (req, res) => {
      const id = String(req.params.model);
      const model = ownValue(deps.catalog.speechModels, id);
      if (!model) throw modelNotFound(version, id, Object.keys(deps.catalog.speechModels));
      res.json(geminiModel(id, model));
    });

    router.post(
      `/${version}/models/:modelAction`,
      // generateContent and streamGenerateContent go on to the speech routes
      (req: Request, _res: Response, next: NextFunction) =>
        next(String(req.params.modelAction).endsWith(COUNT_TOKENS) ? undefined : 'route'),
      ...admit,
      (req: Request, _res: Response, next: NextFunction) => {
        const id = String(req.params.modelAction).slice(0, -COUNT_TOKENS.length);
        next(
          ownValue(deps.catalog.speechModels, id)
            ? undefined
            : modelNotFound(version, id, Object.keys(deps.catalog.speechModels), 'countTokens'),
        );
      },
      jsonBody(deps.config.BODY_LIMIT_BYTES, 6 * MAX_PART_CHARS),
      (req: Request, res: Response) => void res.json(countTokens(parseOrThrow(countTokensBody, req.body))),
    );
  }
  return router;
}
