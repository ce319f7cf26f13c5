/**
 * One error type for the whole relay. `code` picks the HTTP status from the table below;
 * each endpoint renders it in its own dialect (OpenAI or Google).
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_json: 400,
  /** The upstream refused the content (moderation); upstreamCode keeps its code. */
  content_rejected: 400,
  /** The upstream refused the request for another reason it gave (bad parameter it checks itself). */
  upstream_rejected: 400,
  unauthorized: 401,
  insufficient_balance: 402,
  not_found: 404,
  /** The job was cancelled before it started (its client left); nothing was charged. */
  cancelled: 409,
  idempotency_conflict: 409,
  /** The resource's state does not allow it (a batch that has ended cannot be cancelled). */
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  /** The upstream failed after the relay's own retries, or answered something unusable. */
  upstream_failed: 502,
  /** The relay's upstream credentials or model mapping are wrong: an operator problem. */
  upstream_misconfigured: 502,
  /** The vendor's quota or spend cap for the model is reached on every channel: known at the first call, so said at once. */
  upstream_quota_exhausted: 503,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface AppErrorOptions {
  status?: number;
  /** The request field at fault, as the client wrote it (`size`, `contents[0].parts`). */
  param?: string;
  /** The upstream's own error code, kept for moderation and other refusals. */
  upstreamCode?: string;
  /** Whether repeating the same request can succeed; drives `x-should-retry`. */
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly param: string | undefined;
  readonly upstreamCode: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? errorStatus[code];
    this.param = options.param;
    this.upstreamCode = options.upstreamCode;
    this.retryable = options.retryable ?? (this.status === 429 || this.status === 503);
    this.retryAfterMs = options.retryAfterMs;
  }
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;
