import { UpstreamError, type UpstreamErrorDetails, type UpstreamErrorKind } from './upstream-error.js';

/** What a stream had settled before it broke: those images are the caller's to keep (and pay for). */
export interface StreamArrivals {
  /** Images received. */
  delivered: number;
  /** Failed images received. */
  failed: number;
  /** The set index of every image settled either way, in arrival order. */
  indexes: number[];
}

/**
 * A stream that broke after it began (HTTP 200 sent): an `error` event, a cut connection, no
 * event within the deadline, or an unreadable event. A failure before the stream (an HTTP
 * error status, no answer) is a plain UpstreamError, as `generate` throws.
 */
export class StreamInterrupted extends UpstreamError {
  override name = 'StreamInterrupted';
  constructor(
    kind: UpstreamErrorKind,
    message: string,
    readonly arrived: StreamArrivals,
    details: Omit<UpstreamErrorDetails, 'status'> = {},
  ) {
    super(kind, `${message} (after ${arrived.delivered} delivered and ${arrived.failed} failed images)`, { status: 200, ...details });
  }
}
