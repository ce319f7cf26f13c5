import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { CallObserver } from '../metrics.js';
import { UpstreamError } from './upstream-error.js';

/** Where an adapter sends its calls: a channel's address, key and deadline. */
export interface UpstreamTarget {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export interface JsonAnswer {
  status: number;
  headers: { get(name: string): string | null };
  body: unknown;
}

// connections to the upstreams stay open between calls (the sockets of one host are reused)
export const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** The answer, read whole; the deadline covers the call from its start to the answer's last byte. */
function exchange(url: URL, payload: string, headers: Record<string, string>, signal: AbortSignal) {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<{ res: IncomingMessage; body: Promise<Buffer> }>((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        agent: agents[url.protocol as 'http:' | 'https:'],
        signal,
      },
      (res) => {
        const body = new Promise<Buffer>((done, fail) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('end', () => done(Buffer.concat(chunks)));
          res.once('error', fail);
          res.once('aborted', () => fail(new Error('the answer was cut off')));
        });
        body.catch(() => undefined); // read by the caller; this only keeps an early failure from going unhandled
        resolve({ res, body });
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/**
 * POSTs JSON with a deadline (node:http with keep-alive: fetch's web streams cost several times
 * the CPU on this hot path); network failures and timeouts become transient UpstreamErrors.
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
  observe: CallObserver = () => {},
): Promise<JsonAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () => signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError';
  let answer: Awaited<ReturnType<typeof exchange>>;
  try {
    answer = await exchange(
      new URL(url),
      JSON.stringify(body),
      { 'content-type': 'application/json', accept: 'application/json', ...headers },
      signal,
    );
  } catch (error) {
    observe(timedOut() ? 'timeout' : 'network');
    const reason = timedOut() ? `no answer within ${timeoutMs} ms` : describeNetworkError(error);
    throw new UpstreamError('transient', `upstream unreachable: ${reason}`);
  }
  const status = answer.res.statusCode ?? 0;
  observe(String(status));
  let text: string;
  try {
    text = (await answer.body).toString('utf8');
  } catch (error) {
    const reason = timedOut() ? `no complete answer within ${timeoutMs} ms` : describeNetworkError(error);
    throw new UpstreamError('transient', `upstream answer cut off: ${reason}`, { status });
  }
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const raw = answer.res.headers;
  return { status, headers: { get: (name) => [raw[name.toLowerCase()]].flat()[0] ?? null }, body: parsed };
}

export function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return (error as { code?: string }).code ?? cause?.code ?? cause?.message ?? (error as Error).message;
}
