import { APIConnectionError, APIConnectionTimeoutError } from 'openai';

/** What a socket error's code means, in the words the one-line message uses. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'no such host',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
};

/** The socket error code under an error (fetch's TypeError and the openai SDK's APIConnectionError keep it as a cause). */
function codeOf(error: unknown, depth = 0): string | undefined {
  if (!error || typeof error !== 'object' || depth > 4) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code in REASONS) return code;
  // a host with IPv4 and IPv6 addresses fails with an AggregateError of both attempts
  if (Array.isArray(errors)) for (const e of errors as unknown[]) if (codeOf(e, depth + 1)) return codeOf(e, depth + 1);
  return codeOf(cause, depth + 1);
}

/**
 * "cannot reach the relay at http://127.0.0.1:8080 (connection refused); ..." when `error` is a
 * failure to connect, else undefined. The address is the one tried, and the variables named are
 * the ones the CLI reads.
 */
export function unreachableMessage(error: unknown, url: string): string | undefined {
  const code = codeOf(error);
  if (!(error instanceof APIConnectionError) && code === undefined) return undefined;
  return (
    `cannot reach the relay at ${url} (${code ? REASONS[code] : error instanceof APIConnectionTimeoutError ? 'timed out' : 'no connection'}); is npm start running? ` +
    'Set RELAY_URL (and RELAY_API_KEY) to use another relay.'
  );
}
