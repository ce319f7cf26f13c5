import { readToken } from '../auth/session.js';
import type { OpenAIError } from './types.js';

/** An answer other than 2xx, with the message the relay gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the token stops being accepted (rotated, or the api restarted with another). */
let onUnauthorized = () => {};
export const whenUnauthorized = (handler: () => void) => {
  onUnauthorized = handler;
};

type Query = Record<string, string | number | undefined>;

export const withQuery = (path: string, query: Query = {}) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  return params.size ? `${path}?${params}` : path;
};

async function messageOf(res: Response) {
  const text = await res.text();
  try {
    return (JSON.parse(text) as OpenAIError).error.message;
  } catch {
    return text || res.statusText;
  }
}

/** One call to the admin API with the signed-in token. */
export async function admin<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, token = readToken()): Promise<T> {
  if (!token) throw new ApiError(401, 'The admin token was not accepted.');
  const res = await fetch(`/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    onUnauthorized();
    throw new ApiError(401, 'The admin token was not accepted.');
  }
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  return (await res.json()) as T;
}

/**
 * Downloads an admin file (a batch's output, its archive) with the token in a header, as the
 * token never goes into a URL: fetched, then handed to the browser as a file.
 */
export async function download(path: string, filename: string, token = readToken()): Promise<void> {
  const res = await fetch(`/admin${path}`, { headers: { authorization: `Bearer ${token ?? ''}` } });
  if (res.status === 401) {
    onUnauthorized();
    throw new ApiError(401, 'The admin token was not accepted.');
  }
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  const url = URL.createObjectURL(await res.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
