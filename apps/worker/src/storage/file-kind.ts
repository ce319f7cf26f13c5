/** How many leading bytes a file kind reads to say what a body is: a shorter body is none it accepts. */
export const SNIFF_BYTES = 16;

/**
 * A body refused for what its bytes are (no image, no video, ...): the upstream delivered nothing
 * the relay stores, and trying again cannot help.
 */
export class RefusedBytes extends Error {
  /** What arrived instead, for the client and the logs: "text/html, starts with '<!doctype'". */
  readonly arrived: string;
  constructor(what: string, arrived: string) {
    super(`not ${what} (${arrived})`);
    this.arrived = arrived;
  }
}

/**
 * What a result must be, read from its first SNIFF_BYTES alone (the vendor's Content-Type, its
 * link's name and its word are not trusted): its format, which names its key and its type, or the
 * refusal of a body that is none.
 */
export interface FileKind<F extends string> {
  sniff(head: Buffer): F | undefined;
  /** The refusal of a body whose first bytes are `head` (`complete`: they are all of it), as its declared type said. */
  refused(head: Buffer, declared: string | undefined, complete: boolean): RefusedBytes;
}

/** A declared type as far as it is safe to repeat: a plain `type/subtype`, lower-cased, or nothing. */
function declaredType(value: string | undefined): string | undefined {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type && /^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,80}$/.test(type) ? type : undefined;
}

/**
 * The leading bytes as text safe to store, log and show: printable ASCII kept, anything else
 * as `\xNN`, cut short. The body is the vendor's, never trusted to be text.
 */
function printable(head: Buffer, max = 12): string {
  let out = '';
  for (const byte of head.subarray(0, max)) {
    out +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** What arrived instead, named by its declared type and its first bytes. */
export function arrivedInstead(head: Buffer, declared?: string, complete = false): string {
  const type = declaredType(declared);
  const what =
    head.length === 0
      ? 'an empty body'
      : complete && head.length < SNIFF_BYTES
        ? `${head.length} bytes, '${printable(head)}'`
        : `starts with '${printable(head)}'`;
  return type ? `${type}, ${what}` : what;
}
