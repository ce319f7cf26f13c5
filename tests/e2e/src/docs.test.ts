import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Lexer } from 'marked';
import { describe, expect, test } from 'vitest';
import { ADMIN_COMMANDS } from '@relay/api';
import { BATCH_COMMANDS } from '@relay/cli/commands';
import { repoRoot } from '@relay/testkit';
import { checkCommands, checkLinks, checkVariables, type CommandBook, type VariableBook } from './docs/checks.js';
import { readVariables } from './docs/config-tables.js';
import { parseMarkdown, readDocs } from './docs/markdown.js';

/**
 * README.md and docs/ hold to the code they describe: a link that leads nowhere, a script, CLI
 * command or environment variable that does not exist fails here, before a reader meets it.
 * No network: external links are not followed.
 */
const docs = readDocs();
const configuration = docs.find((doc) => doc.file === 'docs/configuration.md')!;

const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const buildScript = readFileSync(join(repoRoot, 'scripts/build.mjs'), 'utf8');
const commands: CommandBook = {
  scripts: Object.keys(packageJson.scripts),
  adminCommands: ADMIN_COMMANDS,
  batchCommands: BATCH_COMMANDS,
  bundles: [...buildScript.matchAll(/^\s+(\w+): '[\w/.-]+\.ts',$/gm)].map((m) => m[1]!),
};

/** Upper-case words the docs quote that are not variables: the error codes of Google's dialect. */
const ERROR_CODES = ['INVALID_ARGUMENT', 'NOT_FOUND', 'FAILED_PRECONDITION', 'INSUFFICIENT_BALANCE', 'RESOURCE_EXHAUSTED'];
/** Other programs' variables the snippets use: the shell's, and MinIO's in the move away from it. */
const FOREIGN = ['PWD', 'MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD'];
const variables: VariableBook = { read: readVariables(configuration), words: new Set([...ERROR_CODES, ...FOREIGN]) };

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

describe('README.md and docs/', () => {
  test('found: README and the pages under docs/', () => {
    expect(docs.map((doc) => doc.file)).toContain('README.md');
    expect(docs.length).toBeGreaterThan(10);
  });

  test('every relative link resolves to a file, and every #anchor to a heading of it', () => {
    expect(checkLinks(docs)).toEqual([]);
  });

  test('every npm script, admin and batch CLI command and bundle they name exists', () => {
    expect(commands.bundles).toEqual(expect.arrayContaining(['api', 'worker', 'admin', 'batch']));
    expect(checkCommands(docs, commands)).toEqual([]);
  });

  test('every environment variable they name is read by an app, a tool or their own snippet', () => {
    expect(checkVariables(docs, variables)).toEqual([]);
  });

  test('the error codes they quote are codes the code uses', () => {
    const sources = ['apps', 'packages'].flatMap((dir) => sourceFiles(join(repoRoot, dir)).map((file) => readFileSync(file, 'utf8')));
    expect(ERROR_CODES.filter((code) => !sources.some((text) => text.includes(code)))).toEqual([]);
  });

  test('README is at most 200 lines and leads to every page', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const linked = new Set(docs.find((doc) => doc.file === 'README.md')!.links.map((href) => href.split('#')[0]));
    expect(docs.filter((doc) => doc.file.startsWith('docs/') && !linked.has(doc.file)).map((doc) => doc.file)).toEqual([]);
  });

  test('every page opens with its title and a paragraph that sums it up', () => {
    for (const doc of docs.filter((d) => d.file.startsWith('docs/'))) {
      const blocks = Lexer.lex(readFileSync(join(repoRoot, doc.file), 'utf8')).filter((token) => token.type !== 'space');
      expect([blocks[0]?.type, blocks[0]?.type === 'heading' ? blocks[0].depth : 0, blocks[1]?.type], doc.file).toEqual([
        'heading',
        1,
        'paragraph',
      ]);
    }
  });
});

describe('the checks catch what they are for', () => {
  const broken = parseMarkdown(
    'docs/broken.md',
    [
      '# Broken',
      '',
      'See [the API](api.md#no-such-heading), [a page](no-such-page.md) and [up](#broken).',
      '',
      '```sh',
      'npm run no-such-script',
      'npm run admin -- acounts list',
      'npm run batch -- rn prompts.txt',
      'curl -H "Authorization: Bearer $KEY" && echo $NO_SUCH_VARIABLE',
      'export MY_KEY=1; echo $MY_KEY; node dist/nothing.mjs',
      '```',
      '',
      'The `*_NO_SUCH_SUFFIX` limits.',
    ].join('\n'),
  );

  test('a broken link, a broken anchor; a link to a heading of its own page passes', () => {
    expect(checkLinks([broken, ...docs])).toEqual([
      'docs/broken.md: link api.md#no-such-heading: no heading #no-such-heading in docs/api.md',
      'docs/broken.md: link no-such-page.md: no file docs/no-such-page.md',
    ]);
  });

  test('an unknown script, admin command, batch command and bundle', () => {
    expect(checkCommands([broken], commands)).toEqual([
      'docs/broken.md: npm run no-such-script: no such script in package.json',
      'docs/broken.md: admin CLI: no command "acounts list"',
      'docs/broken.md: batch CLI: no command "rn"',
      'docs/broken.md: dist/nothing.mjs: npm run build makes no such bundle',
    ]);
  });

  test('a variable nothing reads, a key variable nobody defines, a pattern that stands for nothing', () => {
    expect(checkVariables([broken], variables)).toEqual([
      'docs/broken.md: NO_SUCH_VARIABLE: no app, tool or snippet reads this variable',
      'docs/broken.md: KEY: no app, tool or snippet reads this variable',
      'docs/broken.md: *_NO_SUCH_SUFFIX: stands for no variable anything reads',
    ]);
  });
});
