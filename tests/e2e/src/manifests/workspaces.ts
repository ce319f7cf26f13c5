import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { repoRoot } from '@relay/testkit';
import ts from 'typescript';

export interface Manifest {
  name: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  workspaces?: string[];
  scripts?: Record<string, string>;
  /** npm's review of dependencies' install scripts (root only): true runs them, false skips them. */
  allowScripts?: Record<string, boolean>;
}

export interface Workspace {
  /** The folder, relative to the repository root ('' for the root). */
  dir: string;
  manifest: Manifest;
}

export const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as Manifest;

/** The root and every workspace its `workspaces` globs name (`folder/*` or a folder). */
export function workspaces(): Workspace[] {
  const root = readManifest('');
  const dirs = (root.workspaces ?? []).flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(repoRoot, glob.slice(0, -2)))
          .map((name) => `${glob.slice(0, -2)}/${name}`)
          .filter((dir) => existsSync(join(repoRoot, dir, 'package.json')))
      : [glob],
  );
  return [{ dir: '', manifest: root }, ...dirs.map((dir) => ({ dir, manifest: readManifest(dir) }))];
}

const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', 'coverage', 'results', 'screenshots', '.data']);

/** The source files of a workspace; the root's are its own scripts and configs, not the workspaces'. */
export function sourceFiles(ws: Workspace): string[] {
  const nested = new Set(
    workspaces()
      .map((w) => w.dir)
      .filter(Boolean),
  );
  const walk = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return SKIP.has(entry.name) || entry.name.startsWith('.') || nested.has(path) ? [] : walk(path);
      return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
  return walk(ws.dir);
}

const BUILTIN = new Set(builtinModules);

/** The package an import specifier names, or undefined for a relative path or a builtin. */
export function packageOf(specifier: string): string | undefined {
  if (/^[./#]/.test(specifier) || /^[a-z]+:/.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTIN.has(name) ? undefined : name;
}

/** `require.resolve('p')`, `createRequire(...).resolve('p')`, `import.meta.resolve('p')`: a package found by path. */
function isResolve(callee: ts.Expression): boolean {
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'resolve') return false;
  const on = callee.expression;
  return (
    (ts.isIdentifier(on) && on.text === 'require') ||
    (ts.isCallExpression(on) && ts.isIdentifier(on.expression) && on.expression.text === 'createRequire') ||
    ts.isMetaProperty(on)
  );
}

/**
 * The packages a source file imports: static and dynamic imports, re-exports, require and the
 * resolve calls above, read from TypeScript's syntax tree (so an import shown in a string or a
 * comment is not one).
 */
export function importsOf(fileName: string, text: string): Set<string> {
  const found = new Set<string>();
  const add = (node: ts.Node | undefined) => {
    const name = node && ts.isStringLiteralLike(node) ? packageOf(node.text) : undefined;
    if (name) found.add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const dynamic = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
      if (dynamic || isResolve(callee)) add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
  return found;
}

/** Which of a workspace's files import which packages. */
export function importsByFile(ws: Workspace): Map<string, Set<string>> {
  return new Map(sourceFiles(ws).map((file) => [file, importsOf(file, readFileSync(join(repoRoot, file), 'utf8'))]));
}

/** The files of its own workspace a source file imports or re-exports (relative paths, resolved; `.js` names the `.ts`). */
export function localImportsOf(fileName: string, text: string): string[] {
  const found: string[] = [];
  ts.forEachChild(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false), (node) => {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) return;
    const specifier = node.moduleSpecifier;
    if (specifier && ts.isStringLiteralLike(specifier) && specifier.text.startsWith('.'))
      found.push(posix.join(posix.dirname(fileName), specifier.text).replace(/\.js$/, '.ts'));
  });
  return found;
}
