import sharp from 'sharp';
import type { OutputFormat } from '@relay/jobs';
import { NotAnImage } from '../storage/sniff-image.js';

/** What an image becomes: its format and, for jpeg and webp, the encoder's quality (1-100). */
export interface Conversion {
  format: OutputFormat;
  quality?: number;
}

/**
 * OpenAI's output_compression defaults to 100: a conversion the client gave no level for keeps
 * the most of the image.
 */
const DEFAULT_QUALITY = 100;

/**
 * The image re-encoded by libvips (sharp): same pixels and dimensions, the asked format. A PNG
 * with alpha keeps it as webp; made JPEG, it is flattened onto white (JPEG has no alpha, and the
 * relay refuses a transparent background with jpeg before any call). Bytes libvips cannot decode
 * are no image: the slot was not delivered.
 */
export async function convertImage(bytes: Buffer, { format, quality = DEFAULT_QUALITY }: Conversion): Promise<Buffer> {
  try {
    const image = sharp(bytes, { failOn: 'error' });
    if (format === 'png') return await image.png().toBuffer();
    if (format === 'webp') return await image.webp({ quality }).toBuffer();
    return await image.flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
  } catch (cause) {
    throw new NotAnImage(`undecodable as an image: ${(cause as Error).message.slice(0, 120)}`);
  }
}
