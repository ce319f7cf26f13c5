import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@relay/testkit';
import { expect, test } from 'vitest';
import { localImportsOf, sourceFiles, workspaces } from './manifests/workspaces.js';

/**
 * No circle of imports inside a workspace, type-only imports included: a circle means two files
 * that each need the other, so neither can be understood (or moved, or tested) alone, and at run
 * time one of them sees the other half-loaded. Tests are left out: a test imports what it tests.
 */
const isTest = (file: string) => /\.test(?:-support)?\.tsx?$/.test(file);

/** The strongly connected groups of more than one file (Tarjan's algorithm), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('no workspace has a circle of imports among its files', () => {
  const found = workspaces().flatMap((ws) => {
    const files = sourceFiles(ws).filter((file) => /\.tsx?$/.test(file) && !isTest(file));
    const graph = new Map(files.map((file) => [file, localImportsOf(file, readFileSync(join(repoRoot, file), 'utf8'))]));
    return circles(graph);
  });
  expect(found).toEqual([]);
});

test('the check finds a circle where there is one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts', 'd.ts']],
    ['d.ts', []],
  ]);
  expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
});
