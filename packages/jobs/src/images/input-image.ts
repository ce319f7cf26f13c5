/** Input images: an http(s) URL or `data:image/<lower-case format>;base64,<data>`. */
export const INPUT_IMAGE_FORMATS = ['jpeg', 'jpg', 'png', 'webp', 'bmp', 'tiff', 'gif', 'heic', 'heif'] as const;
export type InputImageFormat = (typeof INPUT_IMAGE_FORMATS)[number];

/** The longest `image` string a request can need: an inline image at `maxBytes`, base64, with its prefix. */
export const maxImageEntryChars = (maxBytes: number) => Math.ceil(maxBytes / 3) * 4 + 64;

/** Longer than any real signed link (TOS/S3 presigned URLs are ~1-2 KB); URLs are stored in job data. */
export const MAX_IMAGE_URL_CHARS = 4096;

const DATA_URI = /^data:image\/([^;,]{1,16});base64,/;

export type ParsedInputImage = { kind: 'url'; url: string } | { kind: 'data'; format: InputImageFormat; base64: string };

/**
 * Classifies one `image` entry by its shape alone (cheap: no decoding, no exceptions, so a
 * request full of junk entries costs little); returns an error sentence when it is neither form.
 * The base64 payload itself is checked when it is decoded (`decodeDataImage`).
 */
export function parseInputImage(value: string): ParsedInputImage | string {
  const data = DATA_URI.exec(value);
  if (data) {
    const format = data[1] ?? '';
    if (format !== format.toLowerCase()) {
      return `the format in data:image/${format};base64 must be lower case (data:image/${format.toLowerCase()};base64,...)`;
    }
    if (!(INPUT_IMAGE_FORMATS as readonly string[]).includes(format)) {
      return `unsupported image format "${format}"; use one of ${INPUT_IMAGE_FORMATS.join(', ')}`;
    }
    const base64 = value.slice(data[0].length);
    if (base64.length === 0) return 'the base64 image data is empty';
    return { kind: 'data', format: format as InputImageFormat, base64 };
  }
  if (value.startsWith('data:')) {
    return 'a data URI image must look like data:image/<format>;base64,<data>';
  }
  if (value.length > MAX_IMAGE_URL_CHARS) {
    return `image URLs may be at most ${MAX_IMAGE_URL_CHARS} characters; send large images as data:image/<format>;base64,<data>`;
  }
  if (!URL.canParse(value)) {
    return 'must be an http(s) image URL or a data:image/<format>;base64,<data> string';
  }
  const { protocol } = new URL(value);
  if (protocol !== 'http:' && protocol !== 'https:') {
    return `image URLs must use http or https, not ${protocol.replace(':', '')}`;
  }
  return { kind: 'url', url: value };
}

/** The decoded size a base64 string of this length and padding stands for. */
function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/**
 * Decodes an inline image, refusing it before any work when its size alone says it is too big.
 * Node's decoder skips characters that are not base64 (and accepts base64url's), so a decoded
 * length short of what the text's length promises means the text was not clean base64 (checked natively, no regex over
 * megabytes).
 */
export function decodeDataImage(image: Extract<ParsedInputImage, { kind: 'data' }>, maxBytes: number): Buffer | string {
  const { base64, format } = image;
  // Node's decoder reads base64url too, so its alphabet is named here: the contract says base64
  if (base64.includes('-') || base64.includes('_')) {
    return "the image data is base64url (it contains '-' or '_'), not base64: encode it with '+' and '/' (RFC 4648 section 4)";
  }
  if (base64.length % 4 !== 0) return 'the base64 image data is not valid base64 (its length is not a multiple of 4)';
  const size = decodedLength(base64);
  if (size > maxBytes) return `the image is ${size} bytes; input images may be at most ${maxBytes} bytes`;
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length !== size) return 'the base64 image data is not valid base64';
  if (!looksLike(format, bytes)) return `the data does not contain a ${format} image`;
  return bytes;
}

const MAGIC: Array<[InputImageFormat[], (b: Buffer) => boolean]> = [
  [['jpeg', 'jpg'], (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  [['png'], (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  [['gif'], (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  [['webp'], (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
  [['bmp'], (b) => b.subarray(0, 2).toString('latin1') === 'BM'],
  [['tiff'], (b) => ['II*\0', 'MM\0*'].includes(b.subarray(0, 4).toString('latin1'))],
  [['heic', 'heif'], (b) => b.subarray(4, 8).toString('latin1') === 'ftyp'],
];

/** The format a file's first bytes say it is (an upload names none of its own that can be trusted). */
export function sniffImageFormat(bytes: Buffer): InputImageFormat | undefined {
  return MAGIC.find(([, matches]) => matches(bytes))?.[0][0];
}

/** Whether the decoded bytes start like a file of the declared format. */
export function looksLike(format: InputImageFormat, bytes: Buffer): boolean {
  const entry = MAGIC.find(([formats]) => formats.includes(format));
  return entry ? entry[1](bytes) : false;
}

export const mimeOf = (format: InputImageFormat) => `image/${format === 'jpg' ? 'jpeg' : format}`;
