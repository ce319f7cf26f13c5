import express, { type RequestHandler } from 'express';
import { AppError, type Catalog } from '@relay/core';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import type { OpenAIModelList } from '@relay/jobs';
import { openAIModelOf, openAIModels } from './catalog-models.js';

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
    const id = String(req.params.model);
    const model = openAIModelOf(deps.catalog, id);
    if (!model) throw new AppError('not_found', `The model '${id}' does not exist`, { param: 'model' });
    res.json(model);
  });
  return router;
}
