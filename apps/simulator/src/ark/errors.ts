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

const MESSAGES: Record<string, string> = {
  AuthenticationError: 'the API key or AK/SK in the request is missing or invalid.',
  InputTextSensitiveContentDetected: 'The request failed because the input text may contain sensitive information.',
  OutputImageSensitiveContentDetected: 'The request failed because the output image may contain sensitive information.',
  AccountOverdueError: 'The request failed because your account has an overdue balance.',
  ModelAccountIpmRateLimitExceeded: 'The request failed because you have exceeded the images per minute limit for this model.',
  QuotaExceeded: 'The request failed because you have exceeded your quota.',
  ServerOverloaded: 'The service is currently unable to handle additional requests due to server overload. Please retry later.',
  InternalServiceError: 'The service encountered an unexpected internal error. Please retry later.',
};

export const messageFor = (code: string) => (Object.hasOwn(MESSAGES, code) ? MESSAGES[code]! : code);

/** Ark's error body, with the request id in the message, `x-request-id` and `x-error-code`. */
export function sendArkError(res: Response, status: number, code: string, message: string, param = '') {
  const requestId = String(res.getHeader('x-request-id') ?? '');
  res
    .status(status)
    .set('x-error-code', code)
    .json({ error: { code, message: `${message} Request ID: ${requestId}`, param, type: TYPES[status] ?? 'Error' } });
}
