import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, checkUrl, parseOrThrow, type UrlPolicy } from '@relay/core';
import {
  errorResponses,
  newWebhookSchema,
  webhookBody,
  webhookDeliveriesSchema,
  webhookEndpointSchema,
  type WebhookStore,
} from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { jsonBody } from '../http/json-body.js';
import { ADMIN_SECURITY, jsonAnswer, jsonRequest } from '../openapi/parts.js';
import { accountPath } from './schemas.js';

const webhookPath = z.object({ id: z.string().describe('The webhook endpoint id') });
export const webhookListSchema = z.object({ webhooks: z.array(webhookEndpointSchema) }).meta({ id: 'WebhookList' });

/**
 * Webhook endpoints per account: made here (the signing secret shown once), listed without
 * secrets, removed, and their delivery log read. A URL the relay may not reach (inside its own
 * network, unless URL_ALLOWLIST names it) is refused here, and again at every delivery.
 */
export function webhookRoutes(accounts: AccountsStore, webhooks: WebhookStore, urls: UrlPolicy, bodyLimit: number) {
  const router = express.Router();
  const accountOr404 = async (params: unknown) => {
    const { id } = parseOrThrow(accountPath, params);
    const account = await accounts.getAccount(id);
    if (!account) throw new AppError('not_found', `no account ${id}`);
    return account;
  };
  const endpointOr404 = async (params: unknown) => {
    const { id } = parseOrThrow(webhookPath, params);
    const endpoint = await webhooks.get(id);
    if (!endpoint) throw new AppError('not_found', `no webhook endpoint ${id}`);
    return endpoint;
  };

  router.post('/accounts/:id/webhooks', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(webhookBody, req.body);
    const account = await accountOr404(req.params);
    const verdict = await checkUrl(body.url, urls);
    if (!verdict.ok) throw new AppError('invalid_request', `url: ${verdict.reason}`, { param: 'url' });
    res.status(201).json(await webhooks.create(account.id, body));
  });

  router.get('/accounts/:id/webhooks', async (req, res) => {
    const account = await accountOr404(req.params);
    res.json({ webhooks: await webhooks.list(account.id) });
  });

  router.delete('/webhooks/:id', async (req, res) => {
    const { secret: _secret, ...removed } = await endpointOr404(req.params);
    await webhooks.remove(removed.id);
    res.json(removed);
  });

  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const endpoint = await endpointOr404(req.params);
    res.json({ deliveries: await webhooks.deliveries(endpoint.id) });
  });

  // the secret of the webhooks the account's requests name (Relay-Webhook): the old one stops verifying at once
  router.post('/accounts/:id/request-webhook-secret', async (req, res) => {
    const account = await accountOr404(req.params);
    res.json({ object: 'relay.webhook_secret', secret: await webhooks.rotateRequestSecret(account.id) });
  });

  return router;
}

export const webhookSecretSchema = z
  .object({ object: z.literal('relay.webhook_secret'), secret: z.string().describe("Standard Webhooks' whsec_... secret") })
  .meta({ id: 'WebhookSecret' });

const admin = { tags: ['admin'], security: ADMIN_SECURITY };

export const webhookPaths: ZodOpenApiPathsObject = {
  '/admin/accounts/{id}/request-webhook-secret': {
    post: {
      ...admin,
      summary: "Rotate the secret of the webhooks the account's requests name (Relay-Webhook)",
      requestParams: { path: accountPath },
      responses: { '200': jsonAnswer('The new secret', webhookSecretSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
  '/admin/accounts/{id}/webhooks': {
    get: {
      ...admin,
      summary: "The account's webhook endpoints",
      requestParams: { path: accountPath },
      responses: { '200': jsonAnswer('Endpoints, never their secrets', webhookListSchema), ...errorResponses('openai', [401, 404]) },
    },
    post: {
      ...admin,
      summary: 'Add a webhook endpoint (its signing secret is shown once)',
      description:
        'Async jobs (Prefer: respond-async) announce job.completed and job.failed, batches their end; messages are signed as Standard Webhooks says.',
      requestParams: { path: accountPath },
      requestBody: jsonRequest(webhookBody),
      responses: {
        '201': jsonAnswer('The endpoint with its secret', newWebhookSchema),
        ...errorResponses('openai', [400, 401, 404, 413, 415]),
      },
    },
  },
  '/admin/webhooks/{id}': {
    delete: {
      ...admin,
      summary: 'Remove a webhook endpoint',
      requestParams: { path: webhookPath },
      responses: { '200': jsonAnswer('The removed endpoint', webhookEndpointSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
  '/admin/webhooks/{id}/deliveries': {
    get: {
      ...admin,
      summary: "An endpoint's latest delivery attempts, newest first",
      requestParams: { path: webhookPath },
      responses: { '200': jsonAnswer('Attempts', webhookDeliveriesSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
};
