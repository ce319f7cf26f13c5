import express from 'express';
import { tracked } from '../tracked.js';
import type { SimVendor } from '../vendor.js';
import { geminiAuth } from './auth.js';
import { sendGoogleError } from './errors.js';
import { createGenerateContentHandler } from './generate-content.js';

/** The Gemini API's generateContent for its TTS models (the channel's baseUrl is the host; paths carry /v1beta). */
export const geminiVendor: SimVendor = {
  base: '',
  paths: ['/v1beta'],
  routes(ctx) {
    const router = express.Router();
    router.post(
      '/v1beta/models/:modelAction',
      tracked(ctx, 'speech', (res) => sendGoogleError(res, 429, 'Resource has been exhausted (e.g. check quota).')),
      geminiAuth(ctx.keys),
      createGenerateContentHandler(ctx),
    );
    return router;
  },
  sendError: (res, status, message) => sendGoogleError(res, status, message),
};
