#!/usr/bin/env node
import { createReadStream, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { BATCH_COMMANDS, isBatchCommand } from './batch/commands.js';
import { endpointOf, promptsToJsonl } from './batch/input.js';
import { follow } from './batch/follow.js';
import { writeState } from './batch/collect.js';
import { findRelay } from './batch/target.js';

const USAGE = `relay batch CLI: runs a batch through the relay's Batches API and downloads its files.

  npm run batch -- run <prompts.txt | lines.jsonl> [options]   upload, create, follow, download
  npm run batch -- resume <batch_id> [--out DIR]                 go on after the CLI was stopped
  npm run batch -- status <batch_id>                             the batch object
  npm run batch -- cancel <batch_id>

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
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, arg] = positionals;
const int = (v: string | undefined) => (v === undefined ? undefined : Number.parseInt(v, 10));

async function main() {
  if (values.help || !command || !arg) {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  if (!isBatchCommand(command)) throw new Error(`unknown command "${command}": one of ${BATCH_COMMANDS.join(', ')}; see --help`);
  const target = findRelay();
  if (!target.key) throw new Error('no API key: set RELAY_API_KEY (or run npm start here, whose demo key is used)');
  const client = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: target.key, maxRetries: 3 });
  const outFor = (id: string) => resolve(values.out ?? `batch-${id}`);

  if (command === 'status') return void console.log(JSON.stringify(await client.batches.retrieve(arg), null, 2));
  if (command === 'cancel') return void console.log(JSON.stringify(await client.batches.cancel(arg), null, 2));
  if (command === 'resume') return report(await follow(client, target, arg, outFor(arg), values.quiet), outFor(arg));

  const staging = resolve(values.out ?? '.');
  mkdirSync(staging, { recursive: true });
  let input = resolve(arg);
  let endpoint: string;
  if (arg.endsWith('.jsonl')) {
    endpoint = await endpointOf(input);
  } else {
    // a speech model is one the relay describes under Google's model paths
    const speech = (
      await fetch(`${target.url}/v1beta/models/${encodeURIComponent(values.model)}`, { headers: { 'x-goog-api-key': target.key } })
    ).ok;
    const written = join(staging, `${basename(arg).replace(/\.[^.]*$/, '')}.jsonl`);
    ({ endpoint } = await promptsToJsonl(input, written, {
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
    input = written;
  }
  const file = await client.files.create({ file: createReadStream(input), purpose: 'batch' });
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: endpoint as '/v1/images/generations',
    completion_window: '24h',
    metadata: { source: basename(arg) },
  });
  const dir = outFor(batch.id);
  writeState(dir, { batchId: batch.id, after: 0 });
  console.error(
    `batch ${batch.id}: ${batch.request_counts?.total ?? 0} lines (${batch.status}); files go to ${dir}; resume with: npm run batch -- resume ${batch.id} --out ${dir}`,
  );
  if (batch.status === 'failed') {
    for (const e of batch.errors?.data ?? []) console.error(`  ${e.message}`);
    return 1;
  }
  return report(await follow(client, target, batch.id, dir, values.quiet), dir);
}

function report(batch: OpenAI.Batches.Batch, dir: string) {
  const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
  console.error(
    `batch ${batch.id} ${batch.status}: ${counts.completed} done, ${counts.failed} failed of ${counts.total}; manifest: ${join(dir, 'manifest.json')}`,
  );
  return batch.status === 'completed' ? 0 : 1;
}

main().then(
  (code) => process.exit(code ?? 0),
  (error: Error) => {
    console.error(`batch: ${error.message}`);
    process.exit(1);
  },
);
