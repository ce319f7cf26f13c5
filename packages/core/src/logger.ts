import { pino, type Logger } from 'pino';

export type { Logger };

/** Never log credentials or base64 payloads, wherever they end up in a log object. */
const redactPaths = [
  'req.headers.authorization',
  'req.headers["x-goog-api-key"]',
  'req.headers["x-admin-token"]',
  'req.query.key',
  'apiKey',
  'key',
  '*.apiKey',
  '*.b64_json',
  '*.image',
  'body',
];

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, redact: { paths: redactPaths, censor: '[redacted]' } });
}
