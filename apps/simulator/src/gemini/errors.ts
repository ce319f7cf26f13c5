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

export function sendBadRequest(res: Response, field: string, description: string, message = 'Request contains an invalid argument.') {
  sendGoogleError(res, 400, message, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description }] }]);
}
