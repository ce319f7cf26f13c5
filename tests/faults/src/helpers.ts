import { waitFor } from '@relay/testkit';
import { postJson, type Stack } from '@relay/e2e';

export const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse' };

export const SPEECH_PATH = '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent';
export const speechBody = (text: string) => ({
  contents: [{ parts: [{ text }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
});

export const generate = (stack: Stack, key: string, body: unknown = IMAGE, headers: Record<string, string> = {}, base = stack.url) =>
  postJson(`${base}/v1/images/generations`, body, key, headers);

/** Polls GET /v1/jobs/{id} until the job has its final answer (a 503 means: ask again later). */
export async function finalAnswer(base: string, key: string, jobId: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const res = await fetch(`${base}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status === 202 || res.status === 503) return undefined;
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    timeoutMs,
    `job ${jobId}`,
  );
}

/** Settlements per job in the account's ledger: every job must have exactly one. */
export async function settlementsPerJob(stack: Stack, accountId: string) {
  const { ledger } = await stack.account(accountId);
  const counts = new Map<string, number>();
  for (const entry of ledger) if (entry.type === 'settle') counts.set(entry.jobId, (counts.get(entry.jobId) ?? 0) + 1);
  return counts;
}

export const untilSimInflight = (stack: Stack, n: number) =>
  waitFor(async () => (await stack.simStats()).inflight >= n, 10_000, `${n} upstream calls in flight`);

/** The sum of a metric in a process's /metrics over the label sets that carry every `labels` pair. */
async function metricSum(base: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => wanted.every((pair) => line.includes(pair)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** The sum of a counter in the worker's /metrics over the label sets that carry every `labels` pair. */
export const workerCounter = (stack: Stack, name: string, labels: Record<string, string> = {}) =>
  metricSum(stack.worker.ready.url!, name, labels);

/** Until `n` upstream calls wait on a `hold` fault (the simulator has them, unanswered). */
export const untilSimHolding = (stack: Stack, n: number, timeoutMs = 30_000) =>
  waitFor(async () => (await stack.simStats()).holding >= n, timeoutMs, `${n} upstream calls held`);

/** Requests of the stack's in-process api still waiting for their jobs, from its own metric. */
export const waitingRequests = (stack: Stack) => metricSum(stack.url, 'relay_waiting_requests');
