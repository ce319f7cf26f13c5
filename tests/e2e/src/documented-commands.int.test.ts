import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lexer, type Tokens } from 'marked';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { formatMoney } from '@relay/core/money';
import { freePort, repoRoot, startRedis, waitFor } from '@relay/testkit';
import { launch } from './launch.js';

/**
 * The CLI invocations README and docs/ show, typed as a user types them, from a folder of the
 * user's own (not the checkout: npm is pointed at it with --prefix), against the relay
 * `npm start` runs. Nothing may be left in the repository.
 */
const redis = await startRedis();
// the simulator answers fast here; the Ctrl-C test holds its calls instead of counting on slowness
const relay = await launch(redis.url, { SIM_LATENCY_MS: '100' });
const home = mkdtempSync(join(tmpdir(), 'relay-user-'));
const stopAll = async () => {
  await relay.remove();
  rmSync(home, { recursive: true, force: true });
  await redis.close();
};
// a start that fails here fails the file before any hook would run: its relay and Redis go with it
await waitFor(() => relay.output().includes('admin token:'), 90_000, 'the banner of npm start').catch(async (e: Error) => {
  await stopAll();
  throw new Error(`${e.message}: ${relay.output()}`);
});
afterAll(stopAll);
const sim = `http://127.0.0.1:${relay.ports.SIM_PORT}/_sim`;
const gitStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repoRoot, encoding: 'utf8' });
const repoBefore = gitStatus();

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/**
 * `npm run <script> -- <args>` in the user's folder. The data dir is npm start's (README's is
 * the checkout's .data). `detached`: a process group of its own, as a terminal's foreground job.
 */
function npmRun(script: string, args: string[], options: { env?: Record<string, string>; detached?: boolean } = {}) {
  return inHome('npm', ['--prefix', repoRoot, 'run', script, '--', ...args], options);
}
function inHome(command: string, args: string[], options: { env?: Record<string, string>; detached?: boolean } = {}) {
  const child = spawn(command, args, {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RELAY_DATA_DIR: relay.dataDir, ...options.env },
    detached: options.detached,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, done, err: () => err };
}
const run = async (script: string, ...args: string[]) => npmRun(script, args).done;
/** A command line the CLI printed, typed exactly as printed in the user's folder. */
const typed = async (line: string) => inHome('sh', ['-c', line]).done;
/** The checkout as npm --prefix names it in the hints. */
const checkout = repoRoot.replace(/\/+$/, '');
/** The resume command a hint printed (`resume with: <command>`). */
const resumeHint = (err: string) => /resume with: (.+)$/m.exec(err)?.[1];
/** The JSON a command printed, after npm's own lines ("> batch", "> tsx ..."). */
const jsonOf = <T>(out: string) => JSON.parse(out.slice(out.indexOf('{'))) as T;

test('npm run batch -- run prompts.txt --model vendor-gen-5-0-260128 --size 2K: files and a manifest in the folder it ran in', async () => {
  writeFileSync(join(home, 'prompts.txt'), 'a red kite\na blue kite\na green kite\n');
  const { code, err } = await run('batch', 'run', 'prompts.txt', '--model', 'vendor-gen-5-0-260128', '--size', '2K');
  expect(code, err).toBe(0);
  const id = /batch (batch_\w+): 3 lines/.exec(err)?.[1];
  expect(id, err).toBeDefined();
  const out = join(home, `batch-${id}`);
  // typed from the user's folder: the hint names the checkout, or npm would look for a package.json here
  expect(resumeHint(err)).toBe(`npm --prefix ${checkout} run batch -- resume ${id} --out ${out}`);
  // money as the console shows it: 3 images at 0.035
  expect(err).toContain(`batch ${id} completed: 3 done, 0 failed of 3; charged ${formatMoney(105_000)}; manifest: ${out}/manifest.json`);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { status: string; files: Record<string, unknown[]> };
  expect(manifest.status).toBe('completed');
  expect(Object.keys(manifest.files)).toHaveLength(3);
  expect(readdirSync(home).sort()).toEqual([`batch-${id}`, 'prompts.txt']); // the converted lines went to a temp folder

  // for people: money as the progress bar said it, not the API's micro-units
  const status = await run('batch', 'status', id!);
  expect(status.out).toMatch(/status: +completed since /);
  expect(status.out).toMatch(/lines: +3 done, 0 failed of 3\n/);
  expect(status.out).toMatch(new RegExp(`charged: +${formatMoney(105_000).replace('.', '\\.')}\n`));
  expect(status.out).not.toContain('105000');
  const json = await run('batch', 'status', id!, '--json'); // for scripts: the API's object
  expect(jsonOf<{ status: string; request_counts: { completed: number } }>(json.out)).toMatchObject({
    status: 'completed',
    request_counts: { completed: 3 },
  });
  const resumed = await typed(resumeHint(err)!);
  expect(resumed.code, resumed.err).toBe(0);
  expect(resumed.err).toContain(`batch ${id} completed: 3 done`);
  // an ended batch has no time left: not cli-progress's own "ETA NULL"
  expect(resumed.err).toContain('ETA - |');
  expect(resumed.err).not.toMatch(/ETA (NULL|INF)/);
}, 120_000);

test('Ctrl-C leaves the batch at the relay and says how to resume; status, cancel and resume finish it', async () => {
  writeFileSync(join(home, 'kites.txt'), Array.from({ length: 4 }, (_, i) => `kite ${i}`).join('\n'));
  await fetch(`${sim}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"hold","api":"images","times":4}',
  });
  const cli = npmRun('batch', ['run', 'kites.txt', '--out', 'kites'], { detached: true });
  await waitFor(() => cli.err().includes('resume with:'), 60_000, 'the resume hint, once the batch exists');
  const id = /resume (batch_\w+) --out/.exec(cli.err())![1]!;
  await waitFor(
    async () => ((await (await fetch(`${sim}/stats`)).json()) as { holding: number }).holding > 0,
    60_000,
    'a line at the upstream',
  );
  process.kill(-cli.child.pid!, 'SIGINT'); // what a terminal sends the foreground job
  const stopped = await cli.done;
  expect(stopped.err).toContain(`stopped; the batch goes on at the relay. resume with: npm --prefix ${checkout} run batch -- resume ${id}`);

  const status = await run('batch', 'status', id);
  expect(status.out).toMatch(/status: +in_progress since /);
  expect(status.out).toContain(`follow it and download its files: npm --prefix ${checkout} run batch -- resume ${id}`);
  expect((await run('batch', 'cancel', id)).out).toMatch(/status: +cancell(ing|ed) since /);
  await fetch(`${sim}/faults`, { method: 'DELETE' });
  await fetch(`${sim}/release`, { method: 'POST' });
  const resumed = await typed(resumeHint(stopped.err)!); // as printed: --out the folder it used
  expect(resumed.code).toBe(1); // it ended, but not completed
  expect(resumed.err).toContain(`batch ${id} cancelled:`);
  expect(resumed.err).not.toMatch(/ETA (NULL|INF)/);
  expect(existsSync(join(home, 'kites', 'manifest.json'))).toBe(true);
}, 120_000);

test('with no relay there, the batch CLI names the address it tried and the variables to set', async () => {
  const port = await freePort();
  const { code, err } = await npmRun('batch', ['status', 'batch_x'], {
    env: { RELAY_URL: `http://127.0.0.1:${port}`, RELAY_API_KEY: 'rk_x' },
  }).done;
  expect(code).not.toBe(0);
  expect(err).toContain(
    `batch: cannot reach the relay at http://127.0.0.1:${port} (connection refused); is npm start running? Set RELAY_URL (and RELAY_API_KEY) to use another relay.`,
  );
  // no key and no npm start of this checkout to take one from: how to start it, typed from here
  const keyless = await npmRun('batch', ['status', 'batch_x'], { env: { RELAY_DATA_DIR: join(home, 'no-relay-here') } }).done;
  expect(keyless.err).toContain(`set RELAY_API_KEY (or start the relay with npm --prefix ${checkout} start, whose demo key is used)`);
});

test('npm run admin: help, tables, --json, amounts in units, and the nearest command for a typo', async () => {
  for (const help of ['--help', '-h', 'help']) {
    const { code, out, err } = await run('admin', help);
    expect(code).toBe(0);
    expect(out).toContain(`usage: npm --prefix ${checkout} run admin -- <command> [options]`);
    expect(err).not.toMatch(/Unknown option/i);
  }
  const created = await run('admin', 'accounts', 'create', 'acme', '--json');
  const { id } = jsonOf<{ id: string }>(created.out);
  const table = await run('admin', 'accounts', 'create', 'acme two');
  expect(table.out).toMatch(/│ name\s+│ acme two\s+│/);

  const credited = await run('admin', 'credits', 'add', id, '50', 'first top-up');
  expect(credited.code, credited.err).toBe(0);
  expect(credited.out).toContain('added 50.00 (50,000,000 micro-units)');
  expect(credited.out).toMatch(/│ balance\s+│ 50\.00\s+│/);
  const quarter = jsonOf<{ balance: number }>((await run('admin', 'credits', 'add', id, '0.25', '--json')).out);
  expect(quarter.balance).toBe(50_250_000);
  const micro = jsonOf<{ balance: number }>((await run('admin', 'credits', 'add', id, '-250000', '--micro', '--json')).out);
  expect(micro.balance).toBe(50_000_000);

  // an amount written as micro-units the way the CLI once took them is refused, not credited a million times over
  const old = await run('admin', 'credits', 'add', id, '50000000', 'invoice 42');
  expect(old.code).toBe(2);
  expect(old.err).toContain("50,000,000.00 units is a lot: amounts are in units (50 = 50.00). Add --micro if '50000000' is micro-units");

  const key = await run('admin', 'keys', 'create', id, 'laptop');
  expect(key.out).toMatch(/the key's secret, shown this once: rk_[\w-]{43}/);
  const list = await run('admin', 'accounts', 'list');
  expect(list.out).toMatch(new RegExp(`│ ${id} │ acme\\s+│\\s+50\\.00 │`));
  const listed = jsonOf<{ accounts: Array<{ id: string; balance: number }> }>((await run('admin', 'accounts', 'list', '--json')).out);
  expect(listed.accounts.find((a) => a.id === id)?.balance).toBe(50_000_000);

  const typo = await run('admin', 'acounts', 'list');
  expect(typo.code).toBe(2);
  expect(typo.err).toContain("unknown command 'acounts'; did you mean 'accounts'?");
  // the way to the help, as typed from here, works from here
  const see = /^see: (.+)$/m.exec(typo.err)?.[1];
  expect(see).toBe(`npm --prefix ${checkout} run admin -- --help`);
  expect((await typed(see!)).out).toContain('credits add <accountId> <amount> [note]');
}, 120_000);

/** The sh blocks README shows under a level-2 heading, as written. */
function readmeBlocks(heading: string): string[] {
  const tokens = Lexer.lex(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).text === heading);
  const end = tokens.findIndex((t, i) => i > start && t.type === 'heading' && (t as Tokens.Heading).depth <= 2);
  return tokens
    .slice(start, end)
    .filter((t): t is Tokens.Code => t.type === 'code' && t.lang === 'sh')
    .map((t) => t.text);
}

test("README's first request and every door, typed as written, reach a relay whose banner named another port than 8080", async () => {
  const [first] = readmeBlocks('A first request');
  const [doors] = readmeBlocks('Every door');
  expect(first).toContain('export RELAY_URL=');
  expect(`${first}\n${doors}`).not.toMatch(/127\.0\.0\.1:8080/);
  expect(relay.ports.PORT).not.toBe(8080);
  expect(relay.output()).toContain(`relay:        http://127.0.0.1:${relay.ports.PORT}\n`);
  // the user's second terminal, in the checkout: its .data is this npm start's data folder
  const checkoutDir = mkdtempSync(join(tmpdir(), 'relay-checkout-'));
  symlinkSync(relay.dataDir, join(checkoutDir, '.data'));
  const scratches: string[] = [];
  onTestFinished(() => [checkoutDir, ...scratches].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const sh = (script: string) =>
    new Promise<Run>((resolve) => {
      const child = spawn('sh', ['-ec', script], { cwd: checkoutDir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('close', (code) => resolve({ code, out, err }));
    });

  const made = await sh(`${first}\nprintf '\\nscratch=%s\\n' "$PWD"`);
  expect(made.code, made.err).toBe(0);
  const [answer, scratch] = made.out.split('\nscratch=').map((part) => part.trim());
  scratches.push(scratch!);
  const url = (JSON.parse(answer!) as { data: Array<{ url: string }> }).data[0]!.url;
  expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${relay.ports.PORT}/files/`));

  // in the same terminal: the exports, the scratch folder, the image saved as README says, then every door
  const exports = first!.split('\n').filter((line) => line.startsWith('export '));
  const doorsRun = await sh([...exports, `cd '${scratch}'`, `curl -so lighthouse.jpeg '${url}'`, doors].join('\n'));
  expect(doorsRun.code, doorsRun.err).toBe(0);
  expect(doorsRun.out).toContain('image_generation.partial_image');
  expect(doorsRun.out).toContain(`"url":"http://127.0.0.1:${relay.ports.PORT}/files/`); // the edit
  expect(doorsRun.out).toContain('"inlineData"'); // Gemini's dialect
  expect(doorsRun.out).not.toMatch(/"error"/);
  expect(statSync(join(scratch!, 'welcome.mp3')).size).toBeGreaterThan(0);
}, 120_000);

test("the banner's Try it, pasted into a terminal elsewhere, exports the relay's address and key and makes an image there", async () => {
  const banner = relay.output();
  const block = banner
    .slice(banner.indexOf('  Try it:'), banner.lastIndexOf('='.repeat(80)))
    .split('\n')
    .slice(1)
    .join('\n');
  expect(block).toMatch(new RegExp(`^export RELAY_URL=http://127\\.0\\.0\\.1:${relay.ports.PORT} RELAY_API_KEY=rk_`));
  const pasted = await inHome('sh', ['-ec', `${block}\nprintf '\\n%s %s\\n' "$RELAY_URL" "$RELAY_API_KEY"`]).done;
  expect(pasted.code, pasted.err).toBe(0);
  const [answer, exported] = pasted.out.trim().split('\n');
  expect((JSON.parse(answer!) as { data: Array<{ url: string }> }).data[0]!.url).toMatch(
    new RegExp(`^http://127\\.0\\.0\\.1:${relay.ports.PORT}/files/`),
  );
  const demo = JSON.parse(readFileSync(join(relay.dataDir, 'demo-key.json'), 'utf8')) as { key: string };
  expect(exported).toBe(`http://127.0.0.1:${relay.ports.PORT} ${demo.key}`);
}, 60_000);

test('nothing was left in the repository', () => {
  expect(gitStatus()).toBe(repoBefore);
});
