import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { UsageError } from './args.js';

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

const LINE_SHAPE = 'a .jsonl file holds OpenAI batch lines, {"custom_id", "method": "POST", "url", "body"} each';

/**
 * The endpoint a JSONL input's first request names (every line must name the same). A first line
 * that is not such a request is a mistake in the command line (prompts in a .jsonl file...): a
 * UsageError, nothing sent.
 */
export async function endpointOf(jsonl: string): Promise<string> {
  let no = 0;
  for await (const text of createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity })) {
    no += 1;
    if (!text.trim()) continue;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch (error) {
      throw new UsageError(
        `${jsonl}: line ${no} is not JSON (${(error as Error).message}); ${LINE_SHAPE}; one prompt per line goes in a .txt file`,
        'run',
      );
    }
    const url = (line as { url?: unknown } | null)?.url;
    if (typeof url !== 'string') throw new UsageError(`${jsonl}: line ${no} names no url; ${LINE_SHAPE}`, 'run');
    return url;
  }
  throw new UsageError(`${jsonl} holds no request; ${LINE_SHAPE}`, 'run');
}

/** A Gemini path names its model: /v1beta/models/{model}:generateContent. */
const GEMINI_PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):/;

/** A model a JSONL input names: its dialect (where the relay answers for it), how many lines name it, the first few. */
export interface NamedModel {
  dialect: 'openai' | 'gemini';
  lines: number;
  first: number[];
}

/**
 * The models a JSONL input's lines name, with the line numbers (as the relay counts them, from 1)
 * that name each: an image line's body.model, a Gemini path's model. OpenAI's speech names (tts-1
 * ...) are left out: the relay maps them onto its own models instead of listing them. A line
 * that is not JSON is left to the relay, which names it when the batch is created.
 */
export async function modelsOf(jsonl: string, keep = 3): Promise<Map<string, NamedModel>> {
  const models = new Map<string, NamedModel>();
  let no = 0;
  for await (const text of createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity })) {
    no += 1;
    if (!text.trim()) continue;
    let line: { url?: unknown; body?: { model?: unknown } } | null;
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      continue;
    }
    const url = typeof line?.url === 'string' ? line.url : '';
    const gemini = GEMINI_PATH.exec(url)?.[1];
    const bodyModel = line?.body && typeof line.body === 'object' ? line.body.model : undefined;
    const named: [string, NamedModel['dialect']] | undefined = gemini
      ? [gemini, 'gemini']
      : url.startsWith('/v1/images/') && typeof bodyModel === 'string'
        ? [bodyModel, 'openai']
        : undefined;
    if (!named) continue;
    const model = models.get(named[0]) ?? { dialect: named[1], lines: 0, first: [] };
    model.lines += 1;
    if (model.first.length < keep) model.first.push(no);
    models.set(named[0], model);
  }
  return models;
}
