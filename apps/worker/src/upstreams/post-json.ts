import type { CallObserver } from '../metrics.js';
import { UpstreamError } from './upstream-error.js';

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** POSTs JSON with a deadline; network failures and timeouts become transient UpstreamErrors. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
  observe: CallObserver = () => {},
): Promise<JsonAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    observe(timedOut ? 'timeout' : 'network');
    const reason = timedOut ? `no answer within ${timeoutMs} ms` : describeNetworkError(error);
    throw new UpstreamError('transient', `upstream unreachable: ${reason}`);
  }
  observe(String(res.status));
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw new UpstreamError('transient', `upstream answer cut off: ${describeNetworkError(error)}`, { status: res.status });
  }
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
