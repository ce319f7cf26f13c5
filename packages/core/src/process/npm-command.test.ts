import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { npmCommand, npmRunCommand, shellWord } from './npm-command.js';

const root = mkdtempSync(join(tmpdir(), 'relay-npm-hint-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const checkout = join(root, 'relay');
const workspace = join(checkout, 'apps', 'cli');
const docs = join(checkout, 'docs');
const home = join(root, 'my prompts');
for (const dir of [workspace, docs, home]) mkdirSync(dir, { recursive: true });
writeFileSync(join(checkout, 'package.json'), '{}');
writeFileSync(join(workspace, 'package.json'), '{}');
const underNpm = (typedIn: string) => ({ npm_lifecycle_event: 'batch', INIT_CWD: typedIn });

test('typed in the checkout, or a folder npm resolves to it: plain npm run', () => {
  expect(npmRunCommand('batch', underNpm(checkout), checkout)).toBe('npm run batch --');
  expect(npmRunCommand('batch', underNpm(docs), checkout)).toBe('npm run batch --');
});

test("typed in the user's own folder, or in a workspace of the checkout: npm --prefix <checkout>", () => {
  expect(npmRunCommand('batch', underNpm(home), checkout)).toBe(`npm --prefix ${checkout} run batch --`);
  expect(npmRunCommand('admin', underNpm(workspace), checkout)).toBe(`npm --prefix ${checkout} run admin --`);
  expect(npmCommand(underNpm(home), checkout)).toBe(`npm --prefix ${checkout}`); // `${npm} start`
});

test('without npm: the bundle as node ran it, else the npm script', () => {
  expect(npmRunCommand('batch', {}, '/app', '/app/dist/batch.mjs')).toBe('node dist/batch.mjs');
  expect(npmRunCommand('batch', {}, checkout, join(checkout, 'apps/cli/src/batch.ts'))).toBe('npm run batch --');
});

test('paths the shell would split are quoted', () => {
  expect(shellWord('/home/me/batch-1')).toBe('/home/me/batch-1');
  expect(shellWord('/home/me/my prompts')).toBe(`'/home/me/my prompts'`);
  expect(shellWord(`it's`)).toBe(`'it'\\''s'`);
});
