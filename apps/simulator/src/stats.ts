import { EventEmitter } from 'node:events';
import { perQueue, type QueueName } from '@relay/core';

/**
 * How an Ark stream ended: completed (`completed` and [DONE] sent), failed (an injected `error`
 * event), dropped (an injected cut), or abandoned (the client closed the connection first).
 */
export type StreamEnd = 'completed' | 'failed' | 'dropped' | 'abandoned';

const noStreams = (): Record<StreamEnd | 'opened', number> => ({ opened: 0, completed: 0, failed: 0, dropped: 0, abandoned: 0 });

/** One call as the simulator saw it: when it came, when its answer left (or it was hung up), its status (0: none sent). */
export interface SimCall {
  /** The capability whose vendor API was called. */
  api: QueueName;
  startedAt: number;
  endedAt: number;
  status: number;
  /** The vendor model the call named, once its body was read. */
  model?: string;
  /** Images: the sha256 (hex) of each reference image the call carried, as read (data URI) or downloaded (URL). */
  inputs?: string[];
  /** Speech: the styles its text parts carried apart (speechMetadata.style). */
  styles?: string[];
}

/** What a handler saw of its call's body, for the call log. */
export type CallSeen = Pick<SimCall, 'model' | 'inputs' | 'styles'>;

/** Calls kept in the log: enough for any test, bounded for long benchmark runs. */
const CALLS_KEPT = 1_000;

/** What the simulator saw, so tests can check what reached the upstream. */
export class SimStats {
  /** Calls that reached each capability's vendor API. */
  requests = perQueue(() => 0);
  streams = noStreams();
  /** 'stream-end' (StreamEnd) as each stream ends: in-process tests wait on it instead of polling. */
  readonly events = new EventEmitter();
  statuses: Record<string, number> = {};
  inflight = 0;
  maxInflight = 0;
  imagesGenerated = 0;
  /** Summed duration of every call, and the span from the first call to the last answer. */
  busyMs = 0;
  firstCallAt: number | null = null;
  lastAnswerAt: number | null = null;
  private imageTimes: number[] = [];
  /** The latest calls, oldest first: tests read the time between calls from the upstream's side. */
  calls: SimCall[] = [];

  /** Returns the call's start time, to hand back to end(). */
  begin(): number {
    const now = Date.now();
    this.inflight += 1;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    this.firstCallAt ??= now;
    return now;
  }

  end(api: SimCall['api'], status: number, startedAt: number, seen: CallSeen = {}) {
    const now = Date.now();
    this.calls.push({ api, startedAt, endedAt: now, status, ...seen });
    if (this.calls.length > CALLS_KEPT) this.calls.shift();
    this.inflight -= 1;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    this.busyMs += now - startedAt;
    this.lastAnswerAt = now;
  }

  /** Images generated within the last minute, for the images-per-minute limit. */
  imagesLastMinute(now = Date.now()): number {
    this.imageTimes = this.imageTimes.filter((t) => t > now - 60_000);
    return this.imageTimes.length;
  }

  streamOpened() {
    this.streams.opened += 1;
  }

  streamEnded(how: StreamEnd) {
    this.streams[how] += 1;
    this.events.emit('stream-end', how);
  }

  recordImages(count: number, now = Date.now()) {
    this.imagesGenerated += count;
    for (let i = 0; i < count; i++) this.imageTimes.push(now);
  }

  reset() {
    this.requests = perQueue(() => 0);
    this.streams = noStreams();
    this.statuses = {};
    this.maxInflight = this.inflight;
    this.imagesGenerated = 0;
    this.busyMs = 0;
    this.firstCallAt = null;
    this.lastAnswerAt = null;
    this.imageTimes = [];
    this.calls = [];
  }

  toJSON() {
    return {
      requests: this.requests,
      streams: this.streams,
      statuses: this.statuses,
      inflight: this.inflight,
      maxInflight: this.maxInflight,
      imagesGenerated: this.imagesGenerated,
      busyMs: this.busyMs,
      firstCallAt: this.firstCallAt,
      lastAnswerAt: this.lastAnswerAt,
    };
  }
}
