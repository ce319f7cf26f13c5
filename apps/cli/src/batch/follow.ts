import { setTimeout as sleep } from 'node:timers/promises';
import { SingleBar } from 'cli-progress';
import type OpenAI from 'openai';
import type { Batch } from 'openai/resources/batches';
import { formatMoney } from '@relay/core/money';
import { openCollector, readState, writeState, type OutputLine } from './collect.js';
import { duration, hasEnded, progressOf, secondsLeft } from './describe.js';
import type { RelayTarget } from './target.js';

/** The lines finished since `after`, or undefined once the batch has ended (its files hold them all). */
async function results(target: RelayTarget, batchId: string, after: number) {
  const res = await fetch(`${target.url}/v1/batches/${batchId}/results?after=${after}&limit=500`, {
    headers: { authorization: `Bearer ${target.key}` },
  });
  if (res.status === 409) return undefined;
  if (!res.ok) throw new Error(`results of ${batchId}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: OutputLine[]; after: number; has_more: boolean };
}

async function fileLines(client: OpenAI, fileId: string | null | undefined): Promise<OutputLine[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutputLine);
}

function progressBar(quiet: boolean) {
  const bar = new SingleBar({
    // {left}, not {eta}: cli-progress fills {eta} itself (NULL, INF) from the bar's own rate
    format: '{bar} {value}/{total} lines | {failed} failed | {rate}/min | ETA {left} | charged {charged} | {status}',
    hideCursor: true,
    noTTYOutput: !quiet && !process.stderr.isTTY,
    notTTYSchedule: 5_000,
    stream: process.stderr,
  });
  let started = false;
  return {
    show(batch: Batch) {
      const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
      const done = counts.completed + counts.failed;
      const minutes = batch.in_progress_at ? (Date.now() / 1000 - batch.in_progress_at) / 60 : 0;
      const left = secondsLeft(batch, Date.now() / 1000);
      const payload = {
        failed: counts.failed,
        rate: minutes > 0 ? Math.round(done / minutes) : 0,
        left: left === undefined ? '-' : duration(left),
        charged: formatMoney(progressOf(batch)?.charged ?? 0),
        status: batch.status,
      };
      if (quiet) return;
      if (!started) bar.start(counts.total, done, payload);
      else bar.setTotal(counts.total);
      started = true;
      bar.update(done, payload);
    },
    stop: () => started && bar.stop(),
  };
}

/**
 * Follows a batch to its end, downloading the files of its lines as they finish (the results
 * feed) into `dir`, with the manifest and where it stands kept there after every page: killed
 * and run again (`resume`), it goes on from that page. Once the batch has ended, its output and
 * error files fill in anything not yet fetched.
 */
export async function follow(client: OpenAI, target: RelayTarget, batchId: string, dir: string, quiet = false): Promise<Batch> {
  const collector = openCollector(dir, batchId);
  const state = readState(dir)?.batchId === batchId ? readState(dir)! : { batchId, after: 0 };
  const bar = progressBar(quiet);
  let batch: Batch;
  try {
    for (;;) {
      batch = await client.batches.retrieve(batchId);
      bar.show(batch);
      if (hasEnded(batch)) break;
      const page = await results(target, batchId, state.after);
      if (page) {
        for (const line of page.data) await collector.add(line);
        state.after = page.after;
        collector.save(batch.status);
        writeState(dir, state);
      }
      if (!page?.has_more) await sleep(1_000);
    }
    for (const line of [...(await fileLines(client, batch.output_file_id)), ...(await fileLines(client, batch.error_file_id))])
      await collector.add(line);
    collector.save(batch.status);
  } finally {
    bar.stop();
  }
  return batch;
}
