import OpenAI, { toFile } from 'openai';
import type { Batch } from 'openai/resources/batches';
import { waitFor } from '@relay/testkit';
import type { Stack } from './stack.js';

/** The Batches API as the official openai SDK drives it: what the batch tests share. */
export const SPEECH_PATH = '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent';
export type Line = { custom_id: string; body: Record<string, unknown> };
export const jsonl = (url: string, lines: Line[]) =>
  lines.map((l) => JSON.stringify({ custom_id: l.custom_id, method: 'POST', url, body: l.body })).join('\n') + '\n';

export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: Record<string, unknown> } | null;
  error: { code: string; message: string } | null;
}

export async function client(stack: Stack, balance?: number) {
  const { key, accountId } = await stack.newKey(balance === undefined ? {} : { balance });
  return { openai: new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 }), key, accountId };
}

export async function upload(openai: OpenAI, text: string) {
  return openai.files.create({ file: await toFile(Buffer.from(text), 'lines.jsonl'), purpose: 'batch' });
}

export const ended = (b: Batch) => ['completed', 'failed', 'expired', 'cancelled'].includes(b.status);
export async function until(openai: OpenAI, id: string, done: (b: Batch) => boolean = ended, what = 'the batch to end') {
  return waitFor(
    async () => {
      const batch = await openai.batches.retrieve(id);
      return done(batch) ? batch : undefined;
    },
    60_000,
    what,
  );
}

export async function lines(openai: OpenAI, fileId: string | null | undefined): Promise<OutputLine[]> {
  if (!fileId) return [];
  const text = await (await openai.files.content(fileId)).text();
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as OutputLine);
}
