import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    // under a prefix of its own: run in the checkout, `npm i <pkg>` would edit package.json and the lockfile
    const pkg = `node-${process.platform}-${process.arch}`;
    expect(run.stderr).toContain(
      `npm i --prefix ~/.local/node26 ${pkg}@26\` and \`export PATH=~/.local/node26/node_modules/${pkg}/bin:$PATH\``,
    );
  });

  test('Node 22 is enough', () => {
    expect(check(pretend('22.0.0')).status).toBe(0);
  });
});

describe('npm run admin and npm run batch check first too, like npm start', () => {
  const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  test.each(['start', 'admin', 'batch'])('%s', (name) => {
    expect(scripts[name]).toMatch(/^node apps\/embedded\/node-check\.mjs && /);
  });
});
