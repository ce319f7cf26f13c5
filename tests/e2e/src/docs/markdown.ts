import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, type Token, type Tokens } from 'marked';
import { repoRoot } from '@relay/testkit';

/** A table as the reader sees it: each cell's plain text and the code spans in it. */
export interface Table {
  /** The plain text of the level-2 heading the table sits under ('' before any). */
  section: string;
  /** The plain text of the level-3 heading within that section the table sits under ('' before any). */
  subsection: string;
  rows: Array<Array<{ text: string; code: string[] }>>;
}

/** What the checks need from one Markdown file. */
export interface MarkdownDoc {
  /** The path from the repository root, with forward slashes (README.md, docs/api.md). */
  file: string;
  /** Link and image targets, code excluded. */
  links: string[];
  /** The ids GitHub gives the headings (github-slugger, duplicates numbered as GitHub does). */
  anchors: Set<string>;
  /** Every code span and code block, where commands and variables are written. */
  code: string[];
  tables: Table[];
}

/** The tokens nested in a token, whatever its kind (inline tokens, list items, table cells). */
function children(token: Token): Token[] {
  const t = token as Partial<Tokens.Generic> & { items?: Token[]; header?: Tokens.TableCell[]; rows?: Tokens.TableCell[][] };
  return [
    ...(t.tokens ?? []),
    ...(t.items ?? []),
    ...(t.header ?? []).flatMap((cell) => cell.tokens),
    ...(t.rows ?? []).flat().flatMap((cell) => cell.tokens),
  ];
}

function* walk(tokens: Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    yield* walk(children(token));
  }
}

/** The text a reader sees (GitHub slugs headings from it): code spans kept, markup and HTML tags dropped. */
export function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if (token.type === 'html') return '';
      if (token.type === 'codespan') return (token as Tokens.Codespan).text;
      const nested = children(token);
      if (nested.length) return plainText(nested);
      return 'text' in token && typeof token.text === 'string' ? token.text : '';
    })
    .join('');
}

const codeIn = (tokens: Token[]) => [...walk(tokens)].filter((t) => t.type === 'codespan').map((t) => (t as Tokens.Codespan).text);

export function parseMarkdown(file: string, text: string): MarkdownDoc {
  const tokens = Lexer.lex(text);
  const slugger = new GithubSlugger();
  const doc: MarkdownDoc = { file, links: [], anchors: new Set(), code: [], tables: [] };
  let section = '';
  let subsection = '';
  for (const token of tokens) {
    if (token.type === 'heading') {
      const heading = token as Tokens.Heading;
      if (heading.depth === 2) [section, subsection] = [plainText(heading.tokens), ''];
      if (heading.depth === 3) subsection = plainText(heading.tokens);
    }
    if (token.type === 'table') {
      const table = token as Tokens.Table;
      doc.tables.push({
        section,
        subsection,
        rows: table.rows.map((row) => row.map((cell) => ({ text: plainText(cell.tokens).trim(), code: codeIn(cell.tokens) }))),
      });
    }
  }
  for (const token of walk(tokens)) {
    if (token.type === 'heading') doc.anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens)));
    if (token.type === 'link' || token.type === 'image') doc.links.push((token as Tokens.Link).href);
    if (token.type === 'codespan' || token.type === 'code') doc.code.push((token as Tokens.Codespan).text);
  }
  return doc;
}

const markdownUnder = (dir: string): string[] =>
  readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });

/** README.md and every page under docs/, as the checks see them. */
export function readDocs(): MarkdownDoc[] {
  return ['README.md', ...markdownUnder('docs')].map((file) => parseMarkdown(file, readFileSync(join(repoRoot, file), 'utf8')));
}

/** A repository path as the docs name it (forward slashes, from the root). */
export const fromRoot = (absolute: string) => relative(repoRoot, absolute).split('\\').join('/');
