import { trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import { tracingActive } from './ops/tracing.js';

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

/** With tracing on, a line logged inside a span names its trace and span: an operator goes from a log line to its trace. */
function traceIds(): Record<string, string> {
  if (!tracingActive()) return {};
  const span = trace.getActiveSpan()?.spanContext();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, redact: { paths: redactPaths, censor: '[redacted]' }, mixin: traceIds });
}
