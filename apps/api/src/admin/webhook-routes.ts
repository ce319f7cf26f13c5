import express, { type Request, type Response } from 'express';
import { AppError, checkUrl, parseOrThrow, type UrlPolicy } from '@relay/core';
import { webhookBody, type WebhookStore } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { jsonBody } from '../http/json-body.js';

/**
 * Webhook endpoints per account: made here (the signing secret shown once), listed without
 * secrets, removed, and their delivery log read. A URL the relay may not reach (inside its own
 * network, unless URL_ALLOWLIST names it) is refused here, and again at every delivery.
 */
export function webhookRoutes(accounts: AccountsStore, webhooks: WebhookStore, urls: UrlPolicy, bodyLimit: number) {
  const router = express.Router();
  const accountOr404 = async (id: string) => {
    const account = await accounts.getAccount(id);
    if (!account) throw new AppError('not_found', `no account ${id}`);
    return account;
  };
  const endpointOr404 = async (id: string) => {
    const endpoint = await webhooks.get(id);
    if (!endpoint) throw new AppError('not_found', `no webhook endpoint ${id}`);
    return endpoint;
  };

  router.post('/accounts/:id/webhooks', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(webhookBody, req.body);
    const account = await accountOr404(String(req.params.id));
    const verdict = await checkUrl(body.url, urls);
    if (!verdict.ok) throw new AppError('invalid_request', `url: ${verdict.reason}`, { param: 'url' });
    res.status(201).json(await webhooks.create(account.id, body));
  });

  router.get('/accounts/:id/webhooks', async (req, res) => {
    const account = await accountOr404(String(req.params.id));
    res.json({ webhooks: await webhooks.list(account.id) });
  });

  router.delete('/webhooks/:id', async (req, res) => {
    const { secret: _secret, ...removed } = await endpointOr404(String(req.params.id));
    await webhooks.remove(removed.id);
    res.json(removed);
  });

  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const endpoint = await endpointOr404(String(req.params.id));
    res.json({ deliveries: await webhooks.deliveries(endpoint.id) });
  });

  return router;
}
