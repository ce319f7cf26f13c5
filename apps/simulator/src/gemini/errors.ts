import type { Response } from 'express';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const MESSAGES: Record<number, string> = {
  429: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'The request timed out. Please try again.',
};

/** Google's error body; always JSON, which @google/genai needs to read it. */
export function sendGoogleError(res: Response, code: number, message: string, details?: unknown[]) {
  res
    .status(code)
    .type('application/json')
    .json({ error: { code, message, status: STATUS[code] ?? 'UNKNOWN', ...(details ? { details } : {}) } });
}

export const defaultMessage = (code: number) => MESSAGES[code] ?? 'Request contains an invalid argument.';

/** A 429 as Gemini sends it: quota details and RetryInfo in the body, no Retry-After header. */
export function sendQuotaExceeded(res: Response, model: string, retryDelay: string) {
  const seconds = Number.parseFloat(retryDelay);
  sendGoogleError(res, 429, `${MESSAGES[429]} Please retry in ${seconds}s.`, [
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { location: 'global', model },
          quotaValue: '3',
        },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ]);
}

/**
 * The free tier's request quota as RooCodeInc/Roo-Code#3883 records a 429: QuotaFailure, Help,
 * then RetryInfo, in that order, the message without "Please retry in". The retryDelay is short
 * even for the day's quota: a client that trusts it retries into the same wall.
 */
export function sendQuotaFailure(res: Response, model: string, period: 'minute' | 'day', retryDelay: string) {
  const per = period === 'day' ? 'Day' : 'Minute';
  sendGoogleError(res, 429, MESSAGES[429]!, [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: `GenerateRequestsPer${per}PerProjectPerModel-FreeTier`,
          quotaDimensions: { location: 'global', model },
          quotaValue: period === 'day' ? '15' : '3',
        },
      ],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ]);
}

/** What a TTS model answers when it would have written text instead of speaking (esphome/home-assistant-voice-pe#507). */
export const TRIED_TO_GENERATE_TEXT =
  'Model tried to generate text, but it should only be used for TTS. Make sure your instructions are clear to only generate audio from a given text transcript.';

export function sendBadRequest(res: Response, field: string, description: string, message = 'Request contains an invalid argument.') {
  sendGoogleError(res, 400, message, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description }] }]);
}
