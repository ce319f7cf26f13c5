#!/usr/bin/env node
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import OpenAI from 'openai';
import { formatMoney } from '@relay/core/money';
import { npmCommand, npmRunCommand, shellWord } from '@relay/core/npm-command';
import { BATCH_COMMANDS } from './batch/commands.js';
import { endpointOf, modelsOf, promptsToJsonl, type NamedModel } from './batch/input.js';
import { follow } from './batch/follow.js';
import { describeBatch, hasEnded, progressOf } from './batch/describe.js';
import { describeFailures, readManifest, writeState } from './batch/collect.js';
import { nearestModel, parseCommandLine, SYNTAX, UsageError } from './batch/args.js';
import { findRelay } from './batch/target.js';
import { unreachableMessage } from './batch/unreachable.js';

// as the user can type it again where they are (npm --prefix <checkout> from a folder of their own)
const batchCommand = npmRunCommand('batch');
const USAGE = `relay batch CLI: runs a batch through the relay's Batches API and downloads its files.

usage: ${batchCommand} <command> [options]
${BATCH_COMMANDS.map((c) => `  ${`${c} ${SYNTAX[c].args}`.padEnd(44)}${SYNTAX[c].does}`).join('\n')}

  A prompts file holds one prompt (or, with a speech model, one text) per line; a .jsonl file
  holds OpenAI batch lines as they are. Options for prompts files:
    --model M            image or speech model (default vendor-gen-5-0-260128), one the relay lists
    --size S             2K, 3K or WIDTHxHEIGHT
    --n N                images per prompt (independent generations)
    --set N              a sequential set of up to N images per prompt
    --seed N, --no-watermark, --output-format png|jpeg
    --voice V            speech: the prebuilt voice (default Kore)
  --out DIR              where files, manifest.json and errors go (default ./batch-<id>)
  --quiet                no progress bar

  Exit codes: 0 the batch completed and every line is done; 1 it did not complete or a line
  failed (each reason is printed once with its count of lines, every line is in manifest.json), or
  the relay could not be reached; 2 a mistake in the command line (an unknown option, command or
  model, in --model or in a .jsonl's lines), nothing sent;
  130 stopped (Ctrl-C), the batch goes on at the relay.

  Paths are relative to the folder you ran npm in. Money is shown in units (1 = 1,000,000 micro-units).
  The relay: RELAY_URL and RELAY_API_KEY, else the one npm start runs here and its demo key.`;

// npm runs scripts in the repository; INIT_CWD is the folder the user typed `npm run` in
const here = process.env.INIT_CWD || process.cwd();
const target = findRelay();
/** Set once a batch exists: printed again when the CLI stops before the batch has ended. */
let resumeHint: string | undefined;

async function main() {
  const line = parseCommandLine(process.argv.slice(2));
  if (line.help) {
    // asked for, it is the answer; typed with nothing else, the command line was incomplete
    if (line.values.help) return void console.log(USAGE);
    console.error(USAGE);
    return 2;
  }
  const { values, command, arg } = line;
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

  const source = resolve(here, arg);
  if (!existsSync(source)) throw new UsageError(`no such file: ${source} (paths are relative to the folder npm ran in)`, command);
  // before anything is uploaded: a model the relay does not serve would fail every line, after the upload and the wait
  if (arg.endsWith('.jsonl')) await checkLineModels(client, source, basename(arg));
  else await checkModel(client, values.model);
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
        n: line.n,
        set: line.set,
        seed: line.seed,
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
  const total = batch.request_counts?.total ?? 0;
  const lines = `${total} line${total === 1 ? '' : 's'}`;
  if (batch.status === 'failed') {
    // the input did not validate: nothing will run, so there is nothing to resume or download
    const errors = batch.errors?.data ?? [];
    console.error(`batch ${batch.id} failed: its input did not validate (${lines}); nothing ran, nothing was charged`);
    for (const e of errors.slice(0, 10)) console.error(`  ${e.message}`);
    if (errors.length > 10) console.error(`  ... and ${errors.length - 10} more: ${batchCommand} status ${batch.id} lists them`);
    return 1;
  }
  const dir = outFor(batch.id);
  resumeHint = hint(batch.id, dir);
  console.error(`batch ${batch.id}: ${lines} (${batch.status}); files go to ${dir}`);
  console.error(`  stopped before it ends? ${resumeHint}`);
  mkdirSync(dir, { recursive: true });
  writeState(dir, { batchId: batch.id, after: 0 });
  return report(await follow(client, target, batch.id, dir, values.quiet), dir);
}

const hint = (id: string, dir: string) => `resume with: ${batchCommand} resume ${id} --out ${shellWord(dir)}`;

/** Refuses (exit 2) a model the relay does not list for this key, naming the one meant and every one there is. */
async function checkModel(client: OpenAI, model: string) {
  const models = (await client.models.list()).data.map((m) => m.id);
  if (models.includes(model)) return;
  const meant = nearestModel(model, models);
  throw new UsageError(
    `the relay has no model '${model}'${meant ? `; did you mean '${meant}'?` : ''}\nits models: ${models.join(', ')}`,
    'run',
  );
}

/** Whether the relay answers for a model it does not list (only its 404 says no): asked where a line would ask. */
async function answersFor(model: string, dialect: NamedModel['dialect']) {
  const res =
    dialect === 'gemini'
      ? await fetch(`${target.url}/v1beta/models/${encodeURIComponent(model)}`, { headers: { 'x-goog-api-key': target.key! } })
      : await fetch(`${target.url}/v1/models/${encodeURIComponent(model)}`, { headers: { authorization: `Bearer ${target.key}` } });
  await res.body?.cancel();
  return res.status !== 404;
}

/** "line 4", "lines 2, 3, 5 and 7 more" */
const linesOf = ({ lines, first }: NamedModel) =>
  `line${lines === 1 ? '' : 's'} ${first.join(', ')}${lines > first.length ? ` and ${lines - first.length} more` : ''}`;

/**
 * Refuses (exit 2) a JSONL input whose lines name a model the relay does not have, naming the
 * model, the lines, the one meant and every model there is: each such line would fail, after the
 * upload and the wait, while the others are charged.
 */
async function checkLineModels(client: OpenAI, source: string, name: string) {
  const named = await modelsOf(source);
  if (!named.size) return;
  const models = (await client.models.list()).data.map((m) => m.id);
  const refused: string[] = [];
  for (const [model, where] of named) {
    if (models.includes(model) || (await answersFor(model, where.dialect))) continue;
    const meant = nearestModel(model, models);
    refused.push(`the relay has no model '${model}' (${linesOf(where)} of ${name})${meant ? `; did you mean '${meant}'?` : ''}`);
  }
  if (refused.length) throw new UsageError(`${refused.join('\n')}\nits models: ${models.join(', ')}`, 'run');
}

/** The batch's end in one line, then why lines failed (each reason once, with its count); 0 only when every line is done. */
function report(batch: OpenAI.Batches.Batch, dir: string) {
  resumeHint = undefined; // it has ended: nothing to resume
  const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
  console.error(
    `batch ${batch.id} ${batch.status}: ${counts.completed} done, ${counts.failed} failed of ${counts.total}; ` +
      `charged ${formatMoney(progressOf(batch)?.charged ?? 0)}; manifest: ${join(dir, 'manifest.json')}`,
  );
  for (const failure of describeFailures(readManifest(dir) ?? { errors: {} })) console.error(failure);
  return batch.status === 'completed' && counts.failed === 0 ? 0 : 1;
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
    if (error instanceof UsageError) {
      const usage = error.command ? `usage: ${batchCommand} ${error.command} ${SYNTAX[error.command].args}\n` : '';
      console.error(`${error.message}\n${usage}see: ${batchCommand} --help`);
      process.exit(2);
    }
    console.error(`batch: ${unreachableMessage(error, target.url) ?? error.message}`);
    if (resumeHint) console.error(`the batch goes on at the relay; ${resumeHint}`);
    process.exit(1);
  },
);
