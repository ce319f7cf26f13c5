import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { agents } from './post-json.js';

/**
 * POSTs JSON and resolves with the answer as soon as its status line and headers are in, its
 * body unread: a stream is read as it comes, never whole. Same keep-alive sockets as postJson.
 */
export function openPost(url: URL, payload: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        agent: agents[url.protocol as 'http:' | 'https:'],
        signal,
      },
      resolve,
    );
    // `on`, not `once`: an abort after the answer began errors the request again, and the
    // body's reader hears of it through the answer itself
    req.on('error', reject);
    req.end(payload);
  });
}

/** The most of an error answer a stream reader reads: its JSON names the error, the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** A body or an event's data as JSON; undefined for an empty or unreadable one (the caller says what that means). */
export const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

/** A whole (small, or non-streamed) body as text; beyond `maxBytes` the answer is dropped and the rest refused. */
export async function readText(res: IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new Error(`the answer exceeds ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const BLANK = new Set([0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf]); // whitespace and a UTF-8 byte-order mark

/** The body's first bytes up to its first non-blank one, put back into the stream: nothing is consumed. */
function peekFirstByte(res: IncomingMessage): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const seen: Buffer[] = [];
    const settle = (value: number | undefined, error?: Error) => {
      res.off('data', onData).off('end', onEnd).off('error', onError);
      res.pause();
      if (!res.readableEnded) for (const chunk of seen.reverse()) res.unshift(chunk);
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      seen.push(chunk);
      const at = chunk.findIndex((byte) => !BLANK.has(byte));
      if (at >= 0) settle(chunk[at]);
    };
    const onEnd = () => settle(undefined);
    const onError = (error: Error) => settle(undefined, error);
    res.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/**
 * Whether a 200 answer is an event stream, decided by its body: a vendor, or a proxy in front of
 * it, may label an SSE body `application/json` or `text/plain` (or the reverse). JSON opens with
 * `{` or `[`; an event stream with a field (`event:`, `data:`, `id:`, `retry:`) or a `:` comment.
 * The header decides only an empty body.
 */
export async function isEventStream(res: IncomingMessage): Promise<boolean> {
  const first = await peekFirstByte(res);
  if (first === 0x7b || first === 0x5b) return false;
  if (first !== undefined && /[a-z:]/.test(String.fromCharCode(first))) return true;
  return /^text\/event-stream\b/i.test(res.headers['content-type'] ?? '');
}

/**
 * The SSE messages of a body, each handed on as soon as its blank line arrives. Only the
 * message being received is buffered, up to `maxMessageChars` (a b64_json image is one message).
 */
export async function* sseMessages(res: IncomingMessage, maxMessageChars: number): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  let overflow: Error | undefined;
  const parser = createParser({
    onEvent: (message) => void pending.push(message),
    // unknown fields are ignored, as the SSE spec says; only a runaway message stops the read
    onError: (error) => void (error.type === 'max-buffer-size-exceeded' && (overflow = error)),
    maxBufferSize: maxMessageChars,
  });
  const decoder = new TextDecoder();
  for await (const chunk of res as AsyncIterable<Buffer>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (overflow) throw overflow;
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift()!;
}
