import { arrivedInstead, RefusedBytes, SNIFF_BYTES, type FileKind } from './file-kind.js';

export { SNIFF_BYTES } from './file-kind.js';

/**
 * What a result's bytes are, read from the bytes alone: the vendor's Content-Type, its link's
 * file name and its own word are not trusted (a channel answering an HTML page or an SVG with
 * `image/jpeg` must not get markup stored and served from the relay's origin). The vendors make
 * JPEG, PNG and WebP; anything else is not a result.
 */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const FORMATS: Array<[ImageFormat, (head: Buffer) => boolean]> = [
  // SOI, then the first segment's marker (APPn, DQT, SOF, DHT, COM...: 0xC0 to 0xFE)
  ['jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff && b[3]! >= 0xc0 && b[3]! <= 0xfe],
  // the signature, then the IHDR chunk every PNG opens with (length 13)
  ['png', (b) => b.subarray(0, 8).equals(PNG_SIGNATURE) && b.readUInt32BE(8) === 13 && b.toString('latin1', 12, 16) === 'IHDR'],
  // a RIFF container of form WEBP whose first chunk is a VP8 bitstream (lossy, lossless or extended)
  [
    'webp',
    (b) =>
      b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP' && /^VP8[ LX]$/.test(b.toString('latin1', 12, 16)),
  ],
];

/** The image format the first `SNIFF_BYTES` of a file say it is, or undefined for anything else. */
export function sniffImage(head: Buffer): ImageFormat | undefined {
  if (head.length < SNIFF_BYTES) return undefined;
  return FORMATS.find(([, matches]) => matches(head))?.[0];
}

/** A result whose bytes are no JPEG, PNG or WebP: the upstream delivered no image, trying again cannot help. */
export class NotAnImage extends RefusedBytes {
  override name = 'NotAnImage';
  constructor(arrived: string) {
    super('an image', arrived);
  }
}

/** What arrived instead of an image, named by its declared type and its first bytes. */
export function notAnImage(head: Buffer, declared?: string, complete = false): NotAnImage {
  return new NotAnImage(arrivedInstead(head, declared, complete));
}

/** The images the vendors make, as a result link's copy recognises them. */
export const IMAGE_FILES: FileKind<ImageFormat> = { sniff: sniffImage, refused: notAnImage };
