import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

const api = z.enum(['images', 'speech']);
const times = z.number().int().min(1).default(1);

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
  /** Ark streams only: after `after` image events the connection is cut, as a network failure would. */
  z.strictObject({ type: z.literal('stream-drop'), api: z.literal('images'), times, after: z.number().int().min(0) }),
  /**
   * Ark streams only: after `after` image events the set waits for POST /_sim/release, so a test
   * acts while the set is surely unfinished (images already sent, the call still open).
   */
  z.strictObject({ type: z.literal('stream-hold'), api: z.literal('images'), times, after: z.number().int().min(1) }),
  /** Gemini only: HTTP 200 with finishReason OTHER and no content. */
  z.strictObject({ type: z.literal('no-content'), api: z.literal('speech'), times }),
]);

export type Fault = z.output<typeof faultSchema>;
type AnswerFault = Extract<Fault, { type: 'error' | 'no-content' }>;
/** A fault as a test writes it (`times` defaults to 1). */
export type FaultInput = z.input<typeof faultSchema>;
export type FaultApi = z.output<typeof api>;
type SetFault = Extract<Fault, { type: 'image-error' | StreamFault['type'] }>;
type RequestFault = Exclude<Fault, SetFault>;
export type ImageFault = Extract<Fault, { type: 'image-error' }>;
export type StreamFault = Extract<Fault, { type: 'stream-error' | 'stream-drop' | 'stream-hold' }>;
const isStreamFault = (f: Fault): f is StreamFault => f.type === 'stream-error' || f.type === 'stream-drop' || f.type === 'stream-hold';
const isSetFault = (f: Fault): f is SetFault => f.type === 'image-error' || isStreamFault(f);

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
    const fault = this.queue.find((f): f is RequestFault => f.api === target && !isSetFault(f));
    return fault && this.consume(fault);
  }

  /** Every queued per-image fault, consumed once for this set. */
  takeImageFaults(): ImageFault[] {
    return this.queue.filter((f): f is ImageFault => f.type === 'image-error').map((f) => this.consume(f));
  }

  /** The next mid-stream fault, consumed once by a streamed set (a set answered at once leaves it queued). */
  takeStreamFault(): StreamFault | undefined {
    const fault = this.queue.find(isStreamFault);
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
