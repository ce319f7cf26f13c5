/**
 * A pre-scan of a JSON body's raw bytes, run before JSON.parse, so that the cost of refusing a
 * hostile body is bounded by these limits rather than by its size: a million-entry array, a
 * 10,000-deep object or megabytes of bare numbers stop here after a few thousand steps.
 * Strings are skipped with the native indexOf (a 40 MB base64 image costs one memchr), so
 * legitimate bodies, which are mostly a few long strings, pay almost nothing.
 *
 * It only counts; whether the bytes are valid JSON is still JSON.parse's call, with two
 * exceptions found at the first bytes, before any counting: a body that cannot begin a JSON
 * value (binary, a form) and one that begins like multipart/form-data (`--boundary`), which
 * would otherwise be refused for whatever its file bytes happened to count up to.
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

/** Why a body was refused, with what a caller needs to say it in its own words. */
export type JsonShapeRefusal =
  | { kind: 'depth' | 'complex'; message: string }
  /** The first bytes cannot begin JSON; `head` is them, printable. The message has no subject ("not JSON: ..."): the body's or the line's. */
  | { kind: 'not_json'; message: string; head: string }
  /** The first bytes are a multipart boundary (`--...`): a form sent with a JSON Content-Type. */
  | { kind: 'multipart'; message: string; head: string }
  /**
   * A string longer than any field takes. `field` is where it stands, as the client wrote it
   * (`image`, `image[0]`, `contents[0].parts[0].text`; empty for a bare string); `dataUrl` when
   * it begins `data:` (an inline file).
   */
  | { kind: 'string'; message: string; field: string; bytes: number; limit: number; dataUrl: boolean };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSERS = new Set([0x5d, 0x7d]);
const COMMA = 0x2c;
const COLON = 0x3a;
const DASH = 0x2d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** The bytes a JSON text may begin with (after whitespace): `{ [ " - 0-9 t f n`. */
const VALUE_START = new Set([0x7b, 0x5b, 0x22, 0x2d, ...'0123456789tfn'.split('').map((c) => c.charCodeAt(0))]);
/** A member name longer than this is named by its first bytes. */
const MAX_NAME_BYTES = 64;

/** Where the scan stands: one frame per open object or array. */
interface Frame {
  array: boolean;
  /** The entry's index in an array. */
  index: number;
  /** Where the last member name's raw bytes (between its quotes) lie, in an object. */
  name?: [number, number];
  /** In an object, whether the next string is a member name (after `{` or `,`). */
  expectName: boolean;
}

/** MB (2^20 bytes) with one decimal, or KB under one MB: "26.4 MB", "684 KB". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(Math.round((bytes / (1024 * 1024)) * 10) / 10).toFixed(1).replace(/\.0$/, '')} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** The first bytes of a body up to its first line's end, printable: what a refusal quotes to show what was sent. */
function headOf(body: Buffer, from: number, max: number) {
  const text = body
    .subarray(from, from + max)
    .toString('latin1')
    .split(/[\r\n]/)[0]!;
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(text.replace(/[\x00-\x1f\x7f-\xff]/g, '.'));
}

/** The member name between `[start, end)`, decoded as JSON would (escapes), or its raw bytes when it is not valid. */
function nameOf(body: Buffer, [start, end]: [number, number]) {
  const raw = body.subarray(start, Math.min(end, start + MAX_NAME_BYTES)).toString('utf8');
  let name: string;
  try {
    name = JSON.parse(`"${raw}"`) as string;
  } catch {
    name = raw;
  }
  return end - start > MAX_NAME_BYTES ? `${name}…` : name;
}

/** The path of the value the scan is at, as formatPath writes it (`images[0].image_url`). */
function pathOf(body: Buffer, frames: Frame[]) {
  let path = '';
  for (const frame of frames) {
    if (frame.array) path += `[${frame.index}]`;
    else if (frame.name) {
      const name = nameOf(body, frame.name);
      path = path ? `${path}.${name}` : name;
    }
  }
  return path;
}

/** Returns why the body is refused, or undefined when it is within the limits. */
export function inspectJsonShape(body: Buffer, limits: JsonShapeLimits = DEFAULT_JSON_SHAPE): JsonShapeRefusal | undefined {
  let start = 0;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) start = 3; // a UTF-8 byte order mark
  while (start < body.length && WHITESPACE.has(body[start]!)) start += 1;
  if (start === body.length) return undefined; // empty: the caller says what it needs
  if (body[start] === DASH && body[start + 1] === DASH) {
    const head = headOf(body, start, 72); // a boundary line: two dashes and at most 70 characters
    return { kind: 'multipart', head, message: `not JSON: it starts with ${head}, like multipart/form-data` };
  }
  if (!VALUE_START.has(body[start]!)) {
    const head = headOf(body, start, 24);
    return { kind: 'not_json', head, message: `not JSON: it starts with ${head}` };
  }

  const frames: Frame[] = [];
  let tokens = 0;
  let bare = 0;
  for (let i = start; i < body.length; i++) {
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
          const frame = frames.at(-1);
          const isName = frame !== undefined && !frame.array && frame.expectName;
          if (quote - i - 1 > limits.maxStringBytes) return tooLong(body, frames, i + 1, quote, isName, limits);
          if (isName) {
            frame.name = [i + 1, quote];
            frame.expectName = false;
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
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        tokens += 1;
        frames.push({ array: byte === OPEN_ARRAY, index: 0, expectName: byte === OPEN_OBJECT });
        if (frames.length > limits.maxDepth) {
          return { kind: 'depth', message: `the JSON body nests deeper than ${limits.maxDepth} levels` };
        }
      } else if (CLOSERS.has(byte)) {
        frames.pop();
      } else if (byte === COMMA) {
        tokens += 1;
        const frame = frames.at(-1);
        if (frame?.array) frame.index += 1;
        else if (frame) frame.expectName = true;
      } else if (byte === COLON) {
        const frame = frames.at(-1);
        if (frame && !frame.array) frame.expectName = false;
      }
      if (bare > limits.maxBareBytes) return tooComplex(limits);
    }
    if (tokens > limits.maxTokens) return tooComplex(limits);
  }
  return undefined;
}

/** Returns why the body is refused, as one sentence, or undefined when it is within the limits. */
export function checkJsonShape(body: Buffer, limits: JsonShapeLimits = DEFAULT_JSON_SHAPE): string | undefined {
  return inspectJsonShape(body, limits)?.message;
}

function tooLong(body: Buffer, frames: Frame[], from: number, to: number, isName: boolean, limits: JsonShapeLimits): JsonShapeRefusal {
  // a name too long stands in its object, not under the member before it
  if (isName) frames.at(-1)!.name = undefined;
  const field = pathOf(body, frames);
  const bytes = to - from;
  const dataUrl = !isName && body.subarray(from, from + 5).toString('latin1') === 'data:';
  const what = isName ? 'a member name' : dataUrl ? 'a data URL' : 'a string';
  const size = `${formatSize(bytes)} (${bytes} bytes)`;
  const limit = `${formatSize(limits.maxStringBytes)} (${limits.maxStringBytes} bytes)`;
  const message = field
    ? `${field}: ${what} of ${size}; no field of this endpoint takes more than ${limit}`
    : `the JSON body holds ${what} of ${size}; no field of this endpoint takes more than ${limit}`;
  return { kind: 'string', message, field, bytes, limit: limits.maxStringBytes, dataUrl };
}

const tooComplex = (limits: JsonShapeLimits): JsonShapeRefusal => ({
  kind: 'complex',
  message: `the JSON body has more than ${limits.maxTokens} values or ${limits.maxBareBytes} bytes outside strings; no request of this API needs that many`,
});
