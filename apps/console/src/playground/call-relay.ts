import type { GoogleError, OpenAIError } from '../api/types.js';

/**
 * Sends the playground's request to the relay's public API with the key the operator typed
 * (held in the page's memory only) and returns the body, or throws the relay's own message.
 */
export async function callRelay<T>(path: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${res.status}: ${text.slice(0, 300)}`);
  }
  if (res.status === 202)
    throw new Error('The job is still running (202); its result will be at /v1/jobs/… — try a shorter wait or check the queue.');
  if (!res.ok) {
    const error = (parsed as OpenAIError | GoogleError).error;
    throw new Error(`${res.status}: ${error?.message ?? text.slice(0, 300)}`);
  }
  return parsed as T;
}

/** The same for an answer that is a file (OpenAI's speech): its bytes, or the relay's own message. */
export async function callRelayForBytes(path: string, headers: Record<string, string>, body: unknown): Promise<Blob> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.ok && res.status !== 202) return res.blob();
  const text = await res.text();
  if (res.status === 202) throw new Error('The job is still running (202); its result will be at /v1/jobs/… — try again shortly.');
  let message = text.slice(0, 300);
  try {
    message = (JSON.parse(text) as OpenAIError).error?.message ?? message;
  } catch {
    // not JSON: the text as it came
  }
  throw new Error(`${res.status}: ${message}`);
}
