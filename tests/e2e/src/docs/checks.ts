import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { repoRoot } from '@relay/testkit';
import { parseMarkdown, type MarkdownDoc } from './markdown.js';

/** Each check answers with the problems it found, one readable line each: none means the docs hold. */
export type Problems = string[];

const external = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href);

/**
 * Every relative link resolves to a file of the repository, and its #anchor to a heading of that
 * file. `docs` are the parsed pages; a link into a Markdown file outside them is parsed on demand.
 */
export function checkLinks(docs: MarkdownDoc[]): Problems {
  const byFile = new Map(docs.map((doc) => [doc.file, doc]));
  const anchorsOf = (file: string) => {
    let doc = byFile.get(file);
    if (!doc && file.endsWith('.md') && existsSync(join(repoRoot, file))) {
      doc = parseMarkdown(file, readFileSync(join(repoRoot, file), 'utf8'));
      byFile.set(file, doc);
    }
    return doc?.anchors;
  };
  const problems: Problems = [];
  for (const doc of docs) {
    for (const href of doc.links) {
      if (external(href)) continue;
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? doc.file : posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(dirname(doc.file), path));
      if (path !== '' && (target.startsWith('..') || !existsSync(join(repoRoot, target)))) {
        problems.push(`${doc.file}: link ${href}: no file ${target}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (path !== '' && statSync(join(repoRoot, target)).isDirectory()) {
        problems.push(`${doc.file}: link ${href}: an anchor into a folder`);
        continue;
      }
      const anchors = anchorsOf(target);
      if (!anchors?.has(decodeURIComponent(anchor))) problems.push(`${doc.file}: link ${href}: no heading #${anchor} in ${target}`);
    }
  }
  return problems;
}

/** What the commands the docs show must exist in. */
export interface CommandBook {
  /** package.json's scripts. */
  scripts: string[];
  /** What `npm run admin --` / `dist/admin.mjs` takes: one or two words. */
  adminCommands: readonly string[];
  /** What `npm run batch --` / `dist/batch.mjs` takes. */
  batchCommands: readonly string[];
  /** The bundles `npm run build` makes (`dist/<name>.mjs`). */
  bundles: string[];
}

/** Every `npm run <script>`, `npm start|test`, admin and batch CLI command and bundle the docs name exists. */
export function checkCommands(docs: MarkdownDoc[], book: CommandBook): Problems {
  const problems: Problems = [];
  for (const doc of docs) {
    for (const code of doc.code) {
      for (const [, script] of code.matchAll(/\bnpm\s+run\s+([\w:.-]+)/g)) {
        if (!book.scripts.includes(script!)) problems.push(`${doc.file}: npm run ${script}: no such script in package.json`);
      }
      for (const [, script] of code.matchAll(/\bnpm\s+(start|test)\b/g)) {
        if (!book.scripts.includes(script!)) problems.push(`${doc.file}: npm ${script}: no such script in package.json`);
      }
      // a placeholder (`...`) after the CLI is not a command; a word is, and must be one it knows
      for (const [, first, second] of code.matchAll(
        /(?:\bnpm\s+run\s+admin\s+--|\bdist\/admin\.mjs)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?/g,
      )) {
        const known = book.adminCommands.includes(`${first} ${second}`) || book.adminCommands.includes(first!);
        if (!known) problems.push(`${doc.file}: admin CLI: no command "${[first, second].filter(Boolean).join(' ')}"`);
      }
      for (const [, command] of code.matchAll(/(?:\bnpm\s+run\s+batch\s+--|\bdist\/batch\.mjs)\s+([a-z][\w-]*)/g)) {
        if (!book.batchCommands.includes(command!)) problems.push(`${doc.file}: batch CLI: no command "${command}"`);
      }
      for (const [, bundle] of code.matchAll(/\bdist\/([\w-]+)\.mjs\b/g)) {
        if (!book.bundles.includes(bundle!)) problems.push(`${doc.file}: dist/${bundle}.mjs: npm run build makes no such bundle`);
      }
    }
  }
  return problems;
}

/** What a variable the docs name may be. */
export interface VariableBook {
  /** Read by an app's config schema, the catalog, or a tool (the configuration page's tables). */
  read: Set<string>;
  /** Upper-case words the docs quote that are not variables (error codes); each must be one the code uses. */
  words: Set<string>;
}

const VARIABLE = /(?<![\w*])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w*])/g;

/** Names the docs' own snippets define (`export NAME=...`): a reader's variables, such as a channel's key. */
export function exportedNames(docs: MarkdownDoc[]): Set<string> {
  const names = new Set<string>();
  for (const code of docs.flatMap((doc) => doc.code)) {
    for (const line of code.split('\n')) {
      const exported = /^\s*export\s+(.*)$/.exec(line)?.[1];
      if (exported) for (const [, name] of exported.matchAll(/\b([A-Z][A-Z0-9_]*)=/g)) names.add(name!);
    }
  }
  return names;
}

/**
 * Every environment variable the docs name in code is one something reads (or one their own
 * snippets export), and every `*_SUFFIX` / `PREFIX_*` pattern stands for at least one of them.
 */
export function checkVariables(docs: MarkdownDoc[], book: VariableBook): Problems {
  const defined = exportedNames(docs);
  const problems: Problems = [];
  for (const doc of docs) {
    for (const code of doc.code) {
      // NAME_WITH_UNDERSCORES anywhere in code, and any name a snippet reads ($NAME, process.env.NAME)
      const names = [...code.matchAll(VARIABLE)].map((m) => m[0]);
      names.push(...[...code.matchAll(/(?:\$\{?|\bprocess\.env\.)([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
      for (const name of new Set(names)) {
        if (!book.read.has(name) && !book.words.has(name) && !defined.has(name)) {
          problems.push(`${doc.file}: ${name}: no app, tool or snippet reads this variable`);
        }
      }
      for (const [pattern, suffix, prefix] of code.matchAll(/\*(_[A-Z0-9_]+)\b|\b([A-Z][A-Z0-9]*_)\*/g)) {
        const matches = [...book.read].some((name) => (suffix ? name.endsWith(suffix) : name.startsWith(prefix!)));
        if (!matches) problems.push(`${doc.file}: ${pattern}: stands for no variable anything reads`);
      }
    }
  }
  return problems;
}
