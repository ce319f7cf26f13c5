import { createHash } from 'node:crypto';
import type { Response } from 'express';

const TYPES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

export const DEFAULT_CODES: Record<number, string> = {
  400: 'InputTextSensitiveContentDetected',
  401: 'AuthenticationError',
  403: 'AccountOverdueError',
  404: 'InvalidEndpointOrModel.NotFound',
  429: 'ModelAccountIpmRateLimitExceeded',
  500: 'InternalServiceError',
  503: 'ServerOverloaded',
};

/** What some messages name: the model called, the caller's account, the time (for a quota's reset). */
export interface ArkErrorContext {
  model?: string;
  account?: string;
  now?: Date;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * When a monthly quota "will reset", on the vendor's clock (+0800): the end of the hour three
 * hours from now, so hours away, as the real message says (fixtures: ark-429-AccountQuotaExceeded).
 */
export function quotaResetText(now = new Date()): string {
  const at = new Date(now.getTime() + (8 + 3) * 3_600_000);
  const day = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
  return `${day} ${pad(at.getUTCHours())}:59:59 +0800 CST`;
}

/** A stable ten-digit account id per API key, as the spend-cap message names one. */
export const accountIdFor = (key: string) =>
  String(2_100_000_000 + (createHash('sha256').update(key).digest().readUInt32BE(0) % 100_000_000));

const MESSAGES: Record<string, string | ((c: ArkErrorContext) => string)> = {
  AuthenticationError: 'the API key or AK/SK in the request is missing or invalid.',
  InputTextSensitiveContentDetected: 'The request failed because the input text may contain sensitive information.',
  OutputImageSensitiveContentDetected: 'The request failed because the output image may contain sensitive information.',
  AccountOverdueError: 'The request failed because your account has an overdue balance.',
  ModelAccountIpmRateLimitExceeded: 'The request failed because you have exceeded the images per minute limit for this model.',
  QuotaExceeded: 'The request failed because you have exceeded your quota.',
  ServerOverloaded: 'The service is currently unable to handle additional requests due to server overload. Please retry later.',
  InternalServiceError: 'The service encountered an unexpected internal error. Please retry later.',
  // the real texts (fixtures/vendor/seedream/ark-429-*.json)
  AccountQuotaExceeded: (c) =>
    `You have exceeded the monthly usage quota. It will reset at ${quotaResetText(c.now)}. We recommend upgrading your plan for more quota, or waiting for the reset.`,
  SetLimitExceeded: (c) =>
    `Your account [${c.account ?? accountIdFor('')}] has reached the set usage limit for the [${c.model ?? ''}] model, and the model service has been paused. To continue using this model, please visit the Model Activation page to adjust or close the "Safe Experience Mode".`,
};

export function messageFor(code: string, context: ArkErrorContext = {}): string {
  if (!Object.hasOwn(MESSAGES, code)) return code;
  const message = MESSAGES[code]!;
  return typeof message === 'string' ? message : message(context);
}

/** Codes whose real message ends without a request id (the spend cap's). */
const NO_REQUEST_ID = new Set(['SetLimitExceeded']);
/** The moderation refusal as recorded: `{code, message}` only, no `param` and no `type`. */
const BARE = /SensitiveContentDetected$/;

/** The suffix real messages end with: "Request id: …", lower-case id, as the recorded bodies have it. */
export const requestIdSuffix = (requestId: string) => ` Request id: ${requestId}`;

/** Ark's error body, with the request id in the message, `x-request-id` and `x-error-code`. */
export function sendArkError(res: Response, status: number, code: string, message: string, param = '') {
  const requestId = String(res.getHeader('x-request-id') ?? '');
  const text = NO_REQUEST_ID.has(code) ? message : `${message}${requestIdSuffix(requestId)}`;
  res
    .status(status)
    .set('x-error-code', code)
    .json({ error: BARE.test(code) ? { code, message: text } : { code, message: text, param, type: TYPES[status] ?? 'Error' } });
}
