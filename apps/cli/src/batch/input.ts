import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** What a prompts file's lines become: one request each, with these fields. */
export interface LineOptions {
  model: string;
  size?: string | undefined;
  n?: number | undefined;
  seed?: number | undefined;
  watermark?: boolean | undefined;
  outputFormat?: string | undefined;
  /** Up to this many images per line, as a sequential set. */
  set?: number | undefined;
  /** Speech: the prebuilt voice. */
  voice?: string | undefined;
  /** Speech: the endpoint's version path. */
  speech: boolean;
}

export const speechEndpoint = (model: string) => `/v1beta/models/${model}:generateContent`;

function bodyFor(text: string, o: LineOptions): Record<string, unknown> {
  if (o.speech) {
    return {
      contents: [{ parts: [{ text }] }],
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: o.voice ?? 'Kore' } } },
      },
    };
  }
  return {
    model: o.model,
    prompt: text,
    ...(o.size ? { size: o.size } : {}),
    ...(o.n ? { n: o.n } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.watermark !== undefined ? { watermark: o.watermark } : {}),
    ...(o.outputFormat ? { output_format: o.outputFormat } : {}),
    ...(o.set ? { sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: o.set } } : {}),
  };
}

/**
 * A prompts file (one prompt, or one text to speak, per line) as a batch input, written to
 * `target` line by line; each line's custom_id is its line number in the prompts file.
 */
export async function promptsToJsonl(source: string, target: string, options: LineOptions): Promise<{ endpoint: string; lines: number }> {
  const endpoint = options.speech ? speechEndpoint(options.model) : '/v1/images/generations';
  const out = createWriteStream(target);
  let no = 0;
  let lines = 0;
  for await (const text of createInterface({ input: createReadStream(source), crlfDelay: Infinity })) {
    no += 1;
    if (!text.trim()) continue;
    lines += 1;
    const line = JSON.stringify({
      custom_id: `line-${String(no).padStart(5, '0')}`,
      method: 'POST',
      url: endpoint,
      body: bodyFor(text.trim(), options),
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return { endpoint, lines };
}

/** The endpoint a JSONL input's first request names (every line must name the same). */
export async function endpointOf(jsonl: string): Promise<string> {
  for await (const text of createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity })) {
    if (!text.trim()) continue;
    const url = (JSON.parse(text) as { url?: unknown }).url;
    if (typeof url !== 'string') throw new Error(`${jsonl}: the first line names no url`);
    return url;
  }
  throw new Error(`${jsonl} holds no request`);
}
