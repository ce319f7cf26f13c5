import OpenAI, { APIConnectionTimeoutError, APIError, toFile } from 'openai';
import { waitFor } from '@relay/testkit';
import { IMAGE, SPEECH_PATH, speechBody } from '../helpers.js';
import type { Deliveries } from '../invariants.js';
import { ANSWER_DEADLINE_MS, type Traffic, type Account } from './traffic.js';

/** A batch a chaos step created, to be checked once the run is over. */
export interface BatchRun {
  id: string;
  account: Account;
  lines: number;
  step: number;
}

const ENDED = ['completed', 'failed', 'expired', 'cancelled'];

const client = (base: string, key: string) =>
  new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0, timeout: ANSWER_DEADLINE_MS });

/** The status of a refused SDK call (as a client counts it), or the error itself when it is not one. */
function statusOf(error: unknown): string {
  if (error instanceof APIConnectionTimeoutError) return 'no answer';
  if (error instanceof APIError) return error.status === undefined ? 'connection' : String(error.status);
  throw error;
}

/** Uploads `lines` lines and creates their batch; a refusal (a 503 in an outage) is an answer like any other. */
export async function startBatch(traffic: Traffic, base: string, account: Account, api: 'images' | 'speech', lines: number, step: number) {
  const openai = client(base, account.key);
  const url = api === 'images' ? '/v1/images/generations' : SPEECH_PATH;
  const input = Array.from({ length: lines }, (_, i) => {
    const body = api === 'images' ? { ...IMAGE, prompt: `chaos batch ${step}.${i}` } : speechBody(`chaos batch ${step}.${i}`);
    return JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url, body });
  }).join('\n');
  try {
    const file = await openai.files.create({ file: await toFile(Buffer.from(input), 'chaos.jsonl'), purpose: 'batch' });
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: url as '/v1/completions', completion_window: '24h' });
    traffic.note('200', 'batch created');
    return { id: batch.id, account, lines, step } satisfies BatchRun;
  } catch (error) {
    const status = statusOf(error);
    traffic.note(status, `batch of ${lines} ${api} lines refused: ${status} ${String(error)}`);
    return undefined;
  }
}

export async function cancelBatch(traffic: Traffic, base: string, run: BatchRun) {
  try {
    await client(base, run.account.key).batches.cancel(run.id);
    traffic.note('200', 'batch cancelled');
  } catch (error) {
    const status = statusOf(error);
    traffic.note(status, `cancel of batch ${run.id}: ${status} ${String(error)}`);
  }
}

interface OutputLine {
  custom_id: string;
  response: { status_code: number; request_id: string; body: LineBody } | null;
}
type LineBody = {
  data?: Array<{ url: string }>;
  candidates?: Array<{ content: { parts: Array<{ fileData?: { fileUri: string } }> } }>;
};

/** The file links of a line's answer: an image line's data, a speech line's fileData. */
const linksOf = (body: LineBody) => [
  ...(body.data ?? []).map((d) => d.url),
  ...(body.candidates ?? []).flatMap((c) => c.content.parts.flatMap((p) => (p.fileData ? [p.fileData.fileUri] : []))),
];

/** Waits for every batch to end and reads the lines of its output and error files; a batch that never ends is a problem. */
export async function endedBatches(base: string, runs: BatchRun[]) {
  const problems: string[] = [];
  const batches: Array<{ run: BatchRun; status: string; lines: OutputLine[] }> = [];
  for (const run of runs) {
    const openai = client(base, run.account.key);
    try {
      const batch = await waitFor(
        async () => {
          const b = await openai.batches.retrieve(run.id);
          return ENDED.includes(b.status) ? b : undefined;
        },
        120_000,
        `batch ${run.id} to end`,
      );
      const read = async (fileId: string | null | undefined) =>
        fileId
          ? (await (await openai.files.content(fileId)).text())
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as OutputLine)
          : [];
      batches.push({ run, status: batch.status, lines: [...(await read(batch.output_file_id)), ...(await read(batch.error_file_id))] });
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return { problems, batches };
}

/**
 * A completed batch accounts for each of its lines once (in its output or its error file); the
 * job of every line answered 200 is settled once. Returns the problems, the ids of the lines'
 * jobs, and the file links of those delivered (a line's job answers no GET /v1/jobs: its answer
 * is the line).
 */
export function batchProblems(batches: Awaited<ReturnType<typeof endedBatches>>['batches'], settlements: Map<string, number>) {
  const problems: string[] = [];
  const delivered: Deliveries = new Map();
  const jobs = new Set<string>();
  for (const { run, status, lines } of batches) {
    const ids = lines.map((l) => l.custom_id);
    if (new Set(ids).size !== ids.length) problems.push(`batch ${run.id}: a line appears twice in its files`);
    if (status === 'completed' && ids.length !== run.lines)
      problems.push(`batch ${run.id}: completed with ${ids.length} of its ${run.lines} lines in its files`);
    for (const line of lines) {
      if (line.response) jobs.add(line.response.request_id);
      if (line.response?.status_code !== 200) continue;
      const times = settlements.get(line.response.request_id) ?? 0;
      if (times !== 1) problems.push(`batch ${run.id} ${line.custom_id}: job ${line.response.request_id} settled ${times} times`);
      delivered.set(line.response.request_id, linksOf(line.response.body));
    }
  }
  return { problems, delivered, jobs };
}
