import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { SimContext } from '../context.js';
import { tracked } from '../tracked.js';
import type { SimVendor } from '../vendor.js';
import { sendArkError } from './errors.js';
import { createGenerateHandler } from './generate.js';

/** Ark request ids look like "0217" + a timestamp + random hex. */
const arkRequestId = () => `0217${Date.now()}${randomBytes(12).toString('hex')}`;

function arkAuth(ctx: SimContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!token || !ctx.keys.has(token)) {
      return sendArkError(res, 401, 'AuthenticationError', 'the API key or AK/SK in the request is missing or invalid.');
    }
    next();
  };
}

/** BytePlus ModelArk's images API (Seedream, SeedEdit), and the links its answers hand out. */
export const arkVendor: SimVendor = {
  base: '/api/v3',
  paths: ['/api/v3', '/tos/'],
  routes(ctx) {
    const router = express.Router();
    router.get('/tos/ark-content-generation/:name', (req, res) => ctx.links.serve(req, res));
    router.use('/api/v3', (_req, res, next) => {
      res.set('x-request-id', arkRequestId());
      next();
    });
    router.post(
      '/api/v3/images/generations',
      tracked(ctx, 'images', (res) =>
        sendArkError(res, 429, 'InflightBatchsizeExceeded', 'Too many requests in flight. Please retry later.'),
      ),
      arkAuth(ctx),
      createGenerateHandler(ctx),
    );
    return router;
  },
  sendError: (res, status, message) => sendArkError(res, status, status === 500 ? 'InternalServiceError' : 'InvalidParameter', message),
};
