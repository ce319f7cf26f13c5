#!/usr/bin/env node
import { createReadStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { formatMoney } from '@relay/core/money';
import { npmCommand, npmRunCommand, shellWord } from '@relay/core/npm-command';
import { BATCH_COMMANDS } from './batch/commands.js';
import { endpointOf, promptsToJsonl } from './batch/input.js';
import { follow } from './batch/follow.js';
import { describeBatch, hasEnded, progressOf } from './batch/describe.js';
import { writeState } from './batch/collect.js';
import { findRelay } from './batch/target.js';
import { unreachableMessage } from './batch/unreachable.js';

// as the user can type it again where they are (npm --prefix <checkout> from a folder of their own)
const batchCommand = npmRunCommand('batch');
const USAGE = `relay batch CLI: runs a batch through the relay's Batches API and downloads its files.

usage: ${batchCommand} <command> [options]
  run <prompts.txt | lines.jsonl> [options]   upload, create, follow, download
  resume <batch_id> [--out DIR]               go on after the CLI was stopped
  status <batch_id> [--json]                  where it stands (--json: the API's batch object, for scripts)
  cancel <batch_id> [--json]                  cancels it; where it stands then

  A prompts file holds one prompt (or, with a speech model, one text) per line; a .jsonl file
  holds OpenAI batch lines as they are. Options for prompts files:
    --model M            image or speech model (default vendor-gen-5-0-260128)
    --size S             2K, 3K or WIDTHxHEIGHT
    --n N                images per prompt (independent generations)
    --set N              a sequential set of up to N images per prompt
    --seed N, --no-watermark, --output-format png|jpeg
    --voice V            speech: the prebuilt voice (default Kore)
  --out DIR              where files, manifest.json and errors go (default ./batch-<id>)
  --quiet                no progress bar

  Paths are relative to the folder you ran npm in. Money is shown in units (1 = 1,000,000 micro-units).
  The relay: RELAY_URL and RELAY_API_KEY, else the one npm start runs here and its demo key.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string', default: 'vendor-gen-5-0-260128' },
    size: { type: 'string' },
    n: { type: 'string' },
    set: { type: 'string' },
    seed: { type: 'string' },
    'no-watermark': { type: 'boolean' },
    'output-format': { type: 'string' },
    voice: { type: 'string' },
    out: { type: 'string' },
    quiet: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, arg] = positionals;
const int = (v: string | undefined) => (v === undefined ? undefined : Number.parseInt(v, 10));
// npm runs scripts in the repository; INIT_CWD is the folder the user typed `npm run` in
const here = process.env.INIT_CWD || process.cwd();
const target = findRelay();
/** Set once a batch exists: printed again when the CLI stops before the batch has ended. */
let resumeHint: string | undefined;

async function main() {
  if (values.help || !command || !arg) {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  if (!target.key) throw new Error(`no API key: set RELAY_API_KEY (or start the relay with ${npmCommand()} start, whose demo key is used)`);
  const client = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: target.key, maxRetries: 3 });
  const outFor = (id: string) => resolve(here, values.out ?? `batch-${id}`);

  if (command === 'status' || command === 'cancel') {
    const batch = await (command === 'status' ? client.batches.retrieve(arg) : client.batches.cancel(arg));
    console.log(values.json ? JSON.stringify(batch, null, 2) : describeBatch(batch, Date.now() / 1000));
    if (!values.json && !hasEnded(batch)) console.log(`follow it and download its files: ${batchCommand} resume ${batch.id}`);
    return;
  }
  if (command === 'resume') {
    resumeHint = hint(arg, outFor(arg));
    return report(await follow(client, target, arg, outFor(arg), values.quiet), outFor(arg));
  }
  if (command !== 'run') throw new Error(`unknown command "${command}"; the commands are ${BATCH_COMMANDS.join(', ')} (see --help)`);

  const source = resolve(here, arg);
  // a prompts file becomes batch lines in a folder of its own, removed once uploaded: nothing is left beside the user's files
  const scratch = arg.endsWith('.jsonl') ? undefined : mkdtempSync(join(tmpdir(), 'relay-batch-'));
  let file: OpenAI.Files.FileObject;
  let endpoint: string;
  try {
    let input = source;
    if (!scratch) {
      endpoint = await endpointOf(source);
    } else {
      // a speech model is one the relay describes under Google's model paths
      const speech = (
        await fetch(`${target.url}/v1beta/models/${encodeURIComponent(values.model)}`, { headers: { 'x-goog-api-key': target.key } })
      ).ok;
      input = join(scratch, `${basename(arg).replace(/\.[^.]*$/, '')}.jsonl`);
      ({ endpoint } = await promptsToJsonl(source, input, {
        model: values.model,
        size: values.size,
        n: int(values.n),
        set: int(values.set),
        seed: int(values.seed),
        watermark: values['no-watermark'] ? false : undefined,
        outputFormat: values['output-format'],
        voice: values.voice,
        speech,
      }));
    }
    file = await client.files.create({ file: createReadStream(input), purpose: 'batch' });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: endpoint as '/v1/images/generations',
    completion_window: '24h',
    metadata: { source: basename(arg) },
  });
  const dir = outFor(batch.id);
  resumeHint = hint(batch.id, dir);
  console.error(`batch ${batch.id}: ${batch.request_counts?.total ?? 0} lines (${batch.status}); files go to ${dir}`);
  console.error(`  stopped before it ends? ${resumeHint}`);
  if (batch.status === 'failed') {
    for (const e of batch.errors?.data ?? []) console.error(`  ${e.message}`);
    resumeHint = undefined;
    return 1;
  }
  mkdirSync(dir, { recursive: true });
  writeState(dir, { batchId: batch.id, after: 0 });
  return report(await follow(client, target, batch.id, dir, values.quiet), dir);
}

const hint = (id: string, dir: string) => `resume with: ${batchCommand} resume ${id} --out ${shellWord(dir)}`;

function report(batch: OpenAI.Batches.Batch, dir: string) {
  resumeHint = undefined; // it has ended: nothing to resume
  const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
  console.error(
    `batch ${batch.id} ${batch.status}: ${counts.completed} done, ${counts.failed} failed of ${counts.total}; ` +
      `charged ${formatMoney(progressOf(batch)?.charged ?? 0)}; manifest: ${join(dir, 'manifest.json')}`,
  );
  return batch.status === 'completed' ? 0 : 1;
}

// Ctrl-C leaves the batch running on the relay: say how to pick it up again
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (process.stderr.isTTY) process.stderr.write('\u001b[?25h\n'); // the progress bar hid the cursor
    console.error(resumeHint ? `stopped; the batch goes on at the relay. ${resumeHint}` : 'stopped');
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code ?? 0),
  (error: Error) => {
    console.error(`batch: ${unreachableMessage(error, target.url) ?? error.message}`);
    if (resumeHint) console.error(`the batch goes on at the relay; ${resumeHint}`);
    process.exit(1);
  },
);
