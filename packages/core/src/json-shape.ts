/**
 * A pre-scan of a JSON body's raw bytes, run before JSON.parse, so that the cost of refusing a
 * hostile body is bounded by these limits rather than by its size: a million-entry array, a
 * 10,000-deep object or megabytes of bare numbers stop here after a few thousand steps.
 * Strings are skipped with the native indexOf (a 40 MB base64 image costs one memchr), so
 * legitimate bodies, which are mostly a few long strings, pay almost nothing.
 *
 * It only counts; whether the bytes are valid JSON is still JSON.parse's call.
 */
export interface JsonShapeLimits {
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Values, members and escaped quotes: what makes parsing and validating expensive. */
  maxTokens: number;
  /** Bytes outside strings (structure, numbers, whitespace). */
  maxBareBytes: number;
  /** The longest string (raw bytes, escapes included) any field of the endpoint takes. */
  maxStringBytes: number;
}

export const DEFAULT_JSON_SHAPE: JsonShapeLimits = {
  maxDepth: 32,
  maxTokens: 10_000,
  maxBareBytes: 1024 * 1024,
  maxStringBytes: 64 * 1024,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);
const COMMA = 0x2c;

/** Returns why the body is refused, or undefined when it is within the limits. */
export function checkJsonShape(body: Buffer, limits: JsonShapeLimits = DEFAULT_JSON_SHAPE): string | undefined {
  let depth = 0;
  let tokens = 0;
  let bare = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (byte === QUOTE) {
      tokens += 1;
      // find the closing quote: one not preceded by an odd run of backslashes
      let from = i + 1;
      for (;;) {
        const quote = body.indexOf(QUOTE, from);
        if (quote < 0) return undefined; // unterminated: JSON.parse reports it
        let slashes = 0;
        while (quote - 1 - slashes > i && body[quote - 1 - slashes] === BACKSLASH) slashes += 1;
        if (slashes % 2 === 0) {
          if (quote - i - 1 > limits.maxStringBytes) {
            return `the JSON body holds a string of ${quote - i - 1} bytes; no field of this endpoint takes more than ${limits.maxStringBytes}`;
          }
          i = quote;
          break;
        }
        tokens += 1;
        if (tokens > limits.maxTokens) return tooComplex(limits);
        from = quote + 1;
      }
    } else {
      bare += 1;
      if (OPENERS.has(byte)) {
        depth += 1;
        tokens += 1;
        if (depth > limits.maxDepth) return `the JSON body nests deeper than ${limits.maxDepth} levels`;
      } else if (CLOSERS.has(byte)) {
        depth -= 1;
      } else if (byte === COMMA) {
        tokens += 1;
      }
      if (bare > limits.maxBareBytes) return tooComplex(limits);
    }
    if (tokens > limits.maxTokens) return tooComplex(limits);
  }
  return undefined;
}

const tooComplex = (limits: JsonShapeLimits) =>
  `the JSON body has more than ${limits.maxTokens} values or ${limits.maxBareBytes} bytes outside strings; no request of this API needs that many`;
