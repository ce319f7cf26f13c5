import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { QUEUE_NAMES, type QueueName } from '@relay/core';

/** The capability whose vendor API a fault applies to (every capability's fake vendor takes the generic ones). */
const api = z.enum(QUEUE_NAMES as [QueueName, ...QueueName[]]);
const times = z.number().int().min(1).default(1);
/** A value Node will put in a header: printable ASCII. */
const headerValue = z.string().regex(/^[\x20-\x7e]+$/, 'printable ASCII');

/** Fields `answer-shape` can leave out of an Ark answer. */
export const OMITTABLE = ['size', 'usage', 'output_tokens', 'total_tokens', 'model', 'created'] as const;
/** What a `link` fault's links serve. */
export const LINK_MODES = ['html', 'svg', 'no-length', 'redirect'] as const;
export const MAX_HOPS = 20;

/** Faults a test can queue over HTTP; each applies to the next `times` matching calls. */
export const faultSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('error'),
    api,
    times,
    status: z.number().int().min(400).max(599),
    code: z.string().optional(),
    /** Gemini only: RetryInfo.retryDelay for a 429, such as "38s" or "1.5s". */
    retryDelay: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('drop'), api, times }),
  z.strictObject({ type: z.literal('hang'), api, times }),
  z.strictObject({ type: z.literal('latency'), api, times, ms: z.number().int().min(0) }),
  /** Holds the call until POST /_sim/release: tests act while a call is surely in flight. */
  z.strictObject({ type: z.literal('hold'), api, times }),
  /** Fail slot `index` of the next sequential set; an internal code stops the set there. */
  z.strictObject({ type: z.literal('image-error'), api: z.literal('images'), times, index: z.number().int().min(0), code: z.string() }),
  /**
   * Ark streams only: after `after` image events (0 = before the first), an `error` event
   * carrying `code` ends the stream (no completed, no [DONE]).
   */
  z.strictObject({
    type: z.literal('stream-error'),
    api: z.literal('images'),
    times,
    after: z.number().int().min(0),
    code: z.string().default('InternalServiceError'),
  }),
  /** Streams: after `after` events (an Ark image, a Gemini audio chunk) the connection is cut, as a network failure would. */
  z.strictObject({ type: z.literal('stream-drop'), api, times, after: z.number().int().min(0) }),
  /**
   * Streams: after `after` events (an Ark image, a Gemini audio chunk) the answer waits for POST
   * /_sim/release, so a test acts while it is surely unfinished (parts sent, the call still open).
   */
  z.strictObject({ type: z.literal('stream-hold'), api, times, after: z.number().int().min(1) }),
  /**
   * Gemini only: HTTP 200 with `content: {}`, finishReason OTHER and the audio still billed, as
   * google-gemini/cookbook#1231 records (fixtures/vendor/gemini/tts-200-no-audio-finish-other…).
   */
  z.strictObject({ type: z.literal('no-content'), api: z.literal('speech'), times }),
  /**
   * Ark: the next answer (the JSON, or every event of a stream) leaves out these fields, as real
   * answers do: `size` (SeedEdit, 3.0-t2i), `output_tokens` (usage keeps only generated_images, as
   * 3.0-t2i's does), `total_tokens`, `usage`, `model`, `created`; `sizeSeparator: '×'` writes the
   * size with U+00D7, as the Volcengine docs print it.
   */
  z.strictObject({
    type: z.literal('answer-shape'),
    api: z.literal('images'),
    times,
    omit: z.array(z.enum(OMITTABLE)).default([]),
    sizeSeparator: z.enum(['x', '×']).default('x'),
  }),
  /** Ark streams only: an `image_generation.partial_image` preview event before each `partial_succeeded`. */
  z.strictObject({ type: z.literal('previews'), api: z.literal('images'), times }),
  /** Streams only (Ark, Gemini `alt=sse`): the SSE body goes out under this Content-Type instead of text/event-stream. */
  z.strictObject({ type: z.literal('mislabel'), api, times, contentType: headerValue }),
  /**
   * Ark `url` answers: what the next answer's links serve. `html`: an HTML page with a script
   * (under `contentType`, image/jpeg by default); `svg`: an SVG with a script (image/svg+xml by
   * default); `no-length`: the image with chunked transfer, no Content-Length; `redirect`: `hops`
   * 302s on the simulator's own host, then the image. The mode travels in the signed link.
   */
  z.strictObject({
    type: z.literal('link'),
    api: z.literal('images'),
    times,
    serve: z.enum(LINK_MODES),
    hops: z.number().int().min(1).max(MAX_HOPS).default(1),
    contentType: headerValue.optional(),
  }),
  /**
   * Gemini only: 400 INVALID_ARGUMENT "Model tried to generate text…" (esphome/home-assistant-voice-pe#507).
   * `when: 'bare'` refuses only a text that does not open with a reading direction ("Say …:"); a
   * call it lets through still counts toward `times`.
   */
  z.strictObject({
    type: z.literal('refuse-text'),
    api: z.literal('speech'),
    times,
    when: z.enum(['always', 'bare']).default('always'),
  }),
  /** Gemini only: HTTP 200, finishReason STOP, `inlineData.data: ""`, the audio tokens still billed (unicef/adt-studio#849). */
  z.strictObject({ type: z.literal('empty-audio'), api: z.literal('speech'), times }),
  /**
   * Gemini only: 429 RESOURCE_EXHAUSTED with QuotaFailure (the per-minute or per-day free-tier
   * request quota), Help and a short RetryInfo, even for the day's quota (RooCodeInc/Roo-Code#3883).
   */
  z.strictObject({
    type: z.literal('quota'),
    api: z.literal('speech'),
    times,
    period: z.enum(['minute', 'day']),
    /** Default: the seconds left in the current minute, such as "26s". */
    retryDelay: z
      .string()
      .regex(/^\d+(\.\d+)?s$/)
      .optional(),
  }),
  /** Gemini only: the audio's `inlineData.mimeType`, such as 3.1-flash-tts's `audio/l16; rate=24000; channels=1`. */
  z.strictObject({ type: z.literal('mime'), api: z.literal('speech'), times, mimeType: z.string().min(1) }),
]);

export type Fault = z.output<typeof faultSchema>;
type AnswerFault = Extract<Fault, { type: 'error' | 'no-content' | 'refuse-text' | 'empty-audio' | 'quota' }>;
/** A fault as a test writes it (`times` defaults to 1). */
export type FaultInput = z.input<typeof faultSchema>;
export type FaultApi = z.output<typeof api>;
type SetFault = Extract<Fault, { type: 'image-error' | StreamFault['type'] }>;
/**
 * Faults that change how an answer looks rather than which answer it is: each is taken by the
 * answer it applies to (a stream, a url answer…), beside any request fault, and stays queued
 * until such an answer comes.
 */
export type ShapeFault = Extract<Fault, { type: 'answer-shape' | 'previews' | 'mislabel' | 'link' | 'mime' }>;
type RequestFault = Exclude<Fault, SetFault | ShapeFault>;
export type ImageFault = Extract<Fault, { type: 'image-error' }>;
export type StreamFault = Extract<Fault, { type: 'stream-error' | 'stream-drop' | 'stream-hold' }>;
const SHAPE_TYPES: ReadonlySet<Fault['type']> = new Set<ShapeFault['type']>(['answer-shape', 'previews', 'mislabel', 'link', 'mime']);
const isStreamFault = (f: Fault): f is StreamFault => f.type === 'stream-error' || f.type === 'stream-drop' || f.type === 'stream-hold';
const isSetFault = (f: Fault): f is SetFault => f.type === 'image-error' || isStreamFault(f);
const isShapeFault = (f: Fault): f is ShapeFault => SHAPE_TYPES.has(f.type);

export class FaultBook {
  private queue: Fault[] = [];
  private held: Array<() => void> = [];

  add(fault: Fault) {
    this.queue.push({ ...fault });
  }

  clear() {
    this.queue = [];
    this.release();
  }

  /** Calls waiting on a `hold` fault right now. */
  get holding(): number {
    return this.held.length;
  }

  hold(): Promise<void> {
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** Lets the `count` longest-held calls go on (all by default); returns how many went. */
  release(count = Number.POSITIVE_INFINITY): number {
    const going = this.held.splice(0, count);
    for (const go of going) go();
    return going.length;
  }

  get pending(): readonly Fault[] {
    return this.queue;
  }

  private consume<F extends Fault>(fault: F): F {
    fault.times -= 1;
    if (fault.times <= 0) this.queue.splice(this.queue.indexOf(fault), 1);
    return fault;
  }

  /** The next request-level fault for this api, consumed once. */
  takeRequestFault(target: FaultApi): RequestFault | undefined {
    const fault = this.queue.find((f): f is RequestFault => f.api === target && !isSetFault(f) && !isShapeFault(f));
    return fault && this.consume(fault);
  }

  /** The next shape fault of this type for this api, consumed once by the answer it applies to. */
  takeShapeFault<T extends ShapeFault['type']>(type: T, target: FaultApi): Extract<ShapeFault, { type: T }> | undefined {
    const fault = this.queue.find((f): f is Extract<ShapeFault, { type: T }> => f.type === type && f.api === target);
    return fault && this.consume(fault);
  }

  /** Every queued per-image fault, consumed once for this set. */
  takeImageFaults(): ImageFault[] {
    return this.queue.filter((f): f is ImageFault => f.type === 'image-error').map((f) => this.consume(f));
  }

  /** The next mid-stream fault for this api, consumed once by a stream (an answer sent at once leaves it queued). */
  takeStreamFault(target: FaultApi = 'images'): StreamFault | undefined {
    const fault = this.queue.find((f): f is StreamFault => isStreamFault(f) && f.api === target);
    return fault && this.consume(fault);
  }
}

/**
 * Takes the next request-level fault and plays the transport ones (drop, hang, latency).
 * Returns 'gone' when the request must not be answered, else the fault the handler renders.
 */
export async function playRequestFault(
  book: FaultBook,
  target: FaultApi,
  req: { socket: { destroy(): void } },
): Promise<AnswerFault | 'gone' | undefined> {
  const fault = book.takeRequestFault(target);
  if (fault?.type === 'drop') {
    req.socket.destroy();
    return 'gone';
  }
  if (fault?.type === 'hang') return 'gone';
  if (fault?.type === 'latency') {
    await sleep(fault.ms);
    return undefined;
  }
  if (fault?.type === 'hold') {
    await book.hold();
    return undefined;
  }
  return fault;
}
