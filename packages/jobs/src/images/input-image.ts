/** Input images: an http(s) URL or `data:image/<lower-case format>;base64,<data>`. */
export const INPUT_IMAGE_FORMATS = ['jpeg', 'jpg', 'png', 'webp', 'bmp', 'tiff', 'gif', 'heic', 'heif'] as const;
export type InputImageFormat = (typeof INPUT_IMAGE_FORMATS)[number];

const DATA_URI = /^data:image\/([^;,]+);base64,/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type ParsedInputImage =
  | { kind: 'url'; url: string }
  | { kind: 'data'; format: InputImageFormat; base64: string };

/** Classifies one `image` entry; returns an error sentence when it is neither form. */
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
    if (base64.length === 0 || base64.length % 4 !== 0 || !BASE64.test(base64)) {
      return 'the base64 image data is empty or not valid base64';
    }
    return { kind: 'data', format: format as InputImageFormat, base64 };
  }
  if (value.startsWith('data:')) {
    return 'a data URI image must look like data:image/<format>;base64,<data>';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http(s) image URL or a data:image/<format>;base64,<data> string';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `image URLs must use http or https, not ${url.protocol.replace(':', '')}`;
  }
  return { kind: 'url', url: value };
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

/** Whether the decoded bytes start like a file of the declared format. */
export function looksLike(format: InputImageFormat, bytes: Buffer): boolean {
  const entry = MAGIC.find(([formats]) => formats.includes(format));
  return entry ? entry[1](bytes) : false;
}

export const mimeOf = (format: InputImageFormat) => `image/${format === 'jpg' ? 'jpeg' : format}`;
