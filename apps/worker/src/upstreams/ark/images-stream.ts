import type { IncomingMessage } from 'node:http';
import type { EventSourceMessage } from 'eventsource-parser';
import type { CallObserver } from '../../metrics.js';
import { describeNetworkError, type UpstreamTarget } from '../post-json.js';
import { UpstreamError } from '../upstream-error.js';
import { eventsOfAnswer } from './answer-events.js';
import { toUpstreamError } from './errors.js';
import { sanitizeVendorText } from '../sanitize.js';
import { isEventStream, MAX_ERROR_BODY_BYTES, openPost, parseJson, readText, sseMessages } from '../event-stream.js';
import { arkErrorSchema, type ArkImageRequest } from './schema.js';
import { ARK_STREAM_EVENT_TYPES, arkStreamEventSchema, type ArkStreamEvent } from './stream-events.js';
import { StreamInterrupted, type StreamArrivals } from '../stream-interrupted.js';

export interface StreamOptions {
  /** Stops the call (a cancelled job); the stream then throws the signal's reason. */
  signal?: AbortSignal;
}

/** One event may be a b64_json image of a 4K PNG: tens of MB; beyond this the stream is refused. */
const MAX_EVENT_CHARS = 128 * 1024 * 1024;
const IDLE = Symbol('no event within the deadline');

/**
 * What one SSE message means: an event to hand on, nothing (a type this client does not know,
 * skipped as newer vendor events should be), or the end of the stream (an `error` event; an
 * event that does not read is treated as a broken stream rather than guessed at).
 */
function judge(message: EventSourceMessage, arrived: StreamArrivals, secret: string): ArkStreamEvent | undefined {
  const data = parseJson(message.data);
  const failure = arkErrorSchema.safeParse(data);
  const type = (data as { type?: unknown } | undefined)?.type;
  if (message.event === 'error' || (type === undefined && failure.success)) {
    const code = failure.success ? failure.data.error.code : 'InternalServiceError';
    const {
      kind,
      message: text,
      details,
    } = failure.success
      ? toUpstreamError(200, data, null, secret)
      : new UpstreamError('transient', sanitizeVendorText(message.data, [secret]));
    throw new StreamInterrupted(kind, `upstream stream failed: ${code}: ${text}`, arrived, { ...details, code });
  }
  if (typeof type === 'string' && !ARK_STREAM_EVENT_TYPES.has(type)) return undefined;
  const event = arkStreamEventSchema.safeParse(data);
  if (!event.success)
    throw new StreamInterrupted(
      'transient',
      `upstream sent an unreadable event: ${sanitizeVendorText(message.data.slice(0, 200), [secret])}`,
      arrived,
    );
  return event.data;
}

function record(arrived: StreamArrivals, event: ArkStreamEvent) {
  if (event.type === 'image_generation.completed') return;
  arrived[event.type === 'image_generation.partial_succeeded' ? 'delivered' : 'failed'] += 1;
  arrived.indexes.push(event.image_index);
}

/**
 * Ark's images call with `stream: true`: each image as the vendor finishes it, then
 * `image_generation.completed` with usage. A failure before the stream throws the UpstreamError
 * `generate` would (429, moderation, 5xx, unreachable); one after it began throws
 * StreamInterrupted, saying what had arrived. `timeoutMs` bounds the wait for each event
 * (the first comes with the headers, when the first image is done), not the whole set; time the
 * consumer spends on an event is not counted. Stopping the iteration early aborts the call. A
 * vendor that answers JSON instead (it ignored `stream`) is read as the same events.
 */
export async function* streamArkImages(
  upstream: UpstreamTarget,
  body: ArkImageRequest,
  observe: CallObserver,
  { signal }: StreamOptions = {},
): AsyncGenerator<ArkStreamEvent, void, undefined> {
  signal?.throwIfAborted();
  const abort = new AbortController();
  const stop = () => abort.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => abort.abort(IDLE), upstream.timeoutMs);
  };
  const timedOut = () => abort.signal.reason === IDLE;
  const arrived: StreamArrivals = { delivered: 0, failed: 0, indexes: [] };
  let res: IncomingMessage | undefined;
  try {
    arm();
    try {
      const payload = JSON.stringify({ ...body, stream: true });
      const headers = { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${upstream.apiKey}` };
      res = await openPost(new URL(`${upstream.baseUrl}/images/generations`), payload, headers, abort.signal);
    } catch (error) {
      if (!timedOut()) signal?.throwIfAborted();
      observe(timedOut() ? 'timeout' : 'network');
      const reason = timedOut() ? `no answer within ${upstream.timeoutMs} ms` : describeNetworkError(error);
      throw new UpstreamError('transient', `upstream unreachable: ${reason}`);
    }
    const status = res.statusCode ?? 0;
    observe(String(status));
    const stream =
      status === 200 &&
      (await isEventStream(res).catch((error: unknown) => {
        if (!timedOut()) signal?.throwIfAborted();
        const reason = timedOut() ? `no answer body within ${upstream.timeoutMs} ms` : describeNetworkError(error);
        throw new UpstreamError('transient', `upstream answer cut off: ${reason}`, { status });
      }));
    if (!stream) {
      const text = await readText(res, status === 200 ? undefined : MAX_ERROR_BODY_BYTES).catch((error: unknown) => {
        if (!timedOut()) signal?.throwIfAborted();
        const reason = timedOut() ? `no complete answer within ${upstream.timeoutMs} ms` : describeNetworkError(error);
        throw new UpstreamError('transient', `upstream answer cut off: ${reason}`, { status });
      });
      if (status !== 200) throw toUpstreamError(status, parseJson(text), [res.headers['retry-after']].flat()[0] ?? null, upstream.apiKey);
      clearTimeout(idle);
      yield* eventsOfAnswer(parseJson(text), body.model, upstream.apiKey);
      return;
    }
    let completed = false;
    try {
      for await (const message of sseMessages(res, MAX_EVENT_CHARS)) {
        if (message.data === '[DONE]') break;
        const event = judge(message, arrived, upstream.apiKey);
        arm();
        if (!event) continue;
        record(arrived, event);
        completed ||= event.type === 'image_generation.completed';
        clearTimeout(idle);
        yield event;
        arm();
      }
    } catch (error) {
      if (error instanceof StreamInterrupted) throw error;
      if (completed) return; // the set was over: nothing is missing
      if (!timedOut()) signal?.throwIfAborted();
      const reason = timedOut() ? `no event within ${upstream.timeoutMs} ms` : `the stream broke: ${describeNetworkError(error)}`;
      throw new StreamInterrupted('transient', reason, arrived);
    }
    if (!completed) throw new StreamInterrupted('transient', 'the stream ended before image_generation.completed', arrived);
  } finally {
    clearTimeout(idle);
    signal?.removeEventListener('abort', stop);
    // an answer still coming (the consumer stopped early, or a failure): hang up on it
    if (res && !res.complete) abort.abort();
  }
}
