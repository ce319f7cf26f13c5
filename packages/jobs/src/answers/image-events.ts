import { getObjectBuffer, type BlobStore } from '@relay/core';
import { parseFileId } from '../files.js';
import type { ImageJobResult, StoredFile } from '../images/job.js';

/** OpenAI's event names: `image_generation.*` for generations, `image_edit.*` for edits. */
export type ImageEventPrefix = 'image_generation' | 'image_edit';

export interface ImageEventContext {
  prefix: ImageEventPrefix;
  /** `b64_json` carries the file itself; `url` (the relay's default) a link to it. */
  responseFormat: 'url' | 'b64_json' | undefined;
  /** The background the request asked for (only the models that take it make a transparent one). */
  background?: 'auto' | 'transparent' | 'opaque' | null | undefined;
  publicBase: string;
  store: BlobStore;
}

/** One server-sent event: `event:` repeats the JSON's type, which OpenAI's SDK reads from the data. */
export const sseEvent = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The format of a stored image, as OpenAI's answers name it: read from what the bytes were stored as. */
export const outputFormatOfFile = (file: Pick<StoredFile, 'contentType'>): 'png' | 'jpeg' | 'webp' =>
  file.contentType === 'image/png' ? 'png' : file.contentType === 'image/webp' ? 'webp' : 'jpeg';

/** The fields OpenAI's image events carry for one image; the vendor's images have no quality setting. */
async function imageFields(file: StoredFile, ctx: ImageEventContext) {
  const inline = ctx.responseFormat === 'b64_json';
  return {
    ...(inline ? { b64_json: (await getObjectBuffer(ctx.store, parseFileId(file.fileId)!.key)).toString('base64') } : {}),
    url: `${ctx.publicBase}/files/${file.fileId}`,
    created_at: Math.floor(Date.now() / 1000),
    size: file.size,
    output_format: outputFormatOfFile(file),
    background: ctx.background ?? 'auto',
    quality: 'auto',
  };
}

/** An image of the set, sent the moment it is stored: `partial_image_index` is its index in the set. */
export async function partialImageEvent(file: StoredFile, ctx: ImageEventContext): Promise<string> {
  return sseEvent(`${ctx.prefix}.partial_image`, { partial_image_index: file.index, ...(await imageFields(file, ctx)) });
}

/**
 * The end of a streamed answer: each image not yet sent as its own event, then `completed`, which
 * (as OpenAI's always does) carries an image: the set's last. A model the vendor does not stream
 * thus sends its image as the completed event. Usage counts the delivered images; `data` lists
 * every link and `failed` what was not delivered (relay extensions).
 */
export async function* completionEvents(result: ImageJobResult, sent: ReadonlySet<number>, ctx: ImageEventContext): AsyncIterable<string> {
  const last = result.images.at(-1);
  for (const file of result.images) {
    if (!sent.has(file.index) && file !== last) yield partialImageEvent(file, ctx);
  }
  yield sseEvent(`${ctx.prefix}.completed`, {
    ...(last
      ? await imageFields(last, ctx)
      : { b64_json: '', created_at: result.created, size: '', output_format: 'jpeg', background: 'auto', quality: 'auto' }),
    usage: {
      input_tokens: 0,
      input_tokens_details: { image_tokens: 0, text_tokens: 0 },
      output_tokens: result.usage.output_tokens,
      total_tokens: result.usage.total_tokens,
      generated_images: result.usage.generated_images,
    },
    data: result.images.map((file) => ({
      index: file.index,
      url: `${ctx.publicBase}/files/${file.fileId}`,
      size: file.size,
      ...file.layer,
    })),
    ...(result.failed.length ? { failed: result.failed } : {}),
  });
}
