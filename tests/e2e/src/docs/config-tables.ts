import type { z } from 'zod';
import { apiEnvSchema } from '@relay/api';
import { loadCatalog } from '@relay/core';
import { embeddedEnvSchema } from '@relay/embedded/config';
import { simulatorEnvSchema } from '@relay/simulator';
import { workerEnvSchema } from '@relay/worker';
import type { MarkdownDoc, Table } from './markdown.js';

/** A variable and its default as the code has it (undefined: optional, no default). */
export type Expected = Map<string, string | undefined>;

function defaults(shape: Record<string, z.ZodType>, only?: (name: string) => boolean): Expected {
  const out: Expected = new Map();
  for (const [name, field] of Object.entries(shape)) {
    if (only && !only(name)) continue;
    const parsed = field.safeParse(undefined);
    const value: unknown = parsed.success ? parsed.data : undefined;
    // numbers and booleans as the table writes them (8080, 0.5, true)
    out.set(name, value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value));
  }
  return out;
}

/**
 * Each section of docs/configuration.md (by its heading) and what the code reads there: the api's
 * and the worker's schemas split into what they share and what is their own, the catalog's
 * upstream variables, the launcher's and the simulator's schemas.
 */
export function expectedSections(): Map<string, Expected> {
  const api = apiEnvSchema.shape as Record<string, z.ZodType>;
  const worker = workerEnvSchema.shape as Record<string, z.ZodType>;
  const shared = (name: string) => Object.hasOwn(api, name) && Object.hasOwn(worker, name);
  const upstreams: Expected = new Map();
  for (const upstream of Object.values(loadCatalog({}).upstreams)) {
    if (upstream.baseUrlEnv) upstreams.set(upstream.baseUrlEnv, upstream.baseUrl);
    upstreams.set(upstream.apiKeyEnv, undefined);
  }
  return new Map([
    ['Shared by the api and the worker', defaults(api, shared)],
    ['The api', defaults(api, (name) => !shared(name))],
    ['The worker', defaults(worker, (name) => !shared(name))],
    ['Upstreams', upstreams],
    ['npm start', defaults(embeddedEnvSchema.shape)],
    ['The simulator', defaults(simulatorEnvSchema.shape)],
  ]);
}

/** The section listing what the CLIs, compose, the tests and the benchmarks read, each with its files. */
export const TOOLS_SECTION = 'Read by the tools';

export interface Row {
  /** The variable: the row's first cell, one code span. */
  name: string;
  /** The second cell: a default (schema sections) or the files that read it (the tools section). */
  second: Table['rows'][number][number];
}

/** The rows of the tables under `section`; a first cell that is not one code span is kept as '' to fail loudly. */
export function rowsOf(doc: MarkdownDoc, section: string): Row[] {
  return doc.tables
    .filter((table) => table.section === section)
    .flatMap((table) => table.rows)
    .map((row) => ({
      name: row[0]?.code.length === 1 && row[0].text === row[0].code[0] ? row[0].code[0] : '',
      second: row[1] ?? { text: '', code: [] },
    }));
}

/**
 * Every variable something reads: the schemas and the catalog (from the code itself), and the
 * tools section of the configuration page (whose rows config-table.test holds to their files).
 */
export function readVariables(configuration: MarkdownDoc): Set<string> {
  const fromCode = [...expectedSections().values()].flatMap((expected) => [...expected.keys()]);
  return new Set([...fromCode, ...rowsOf(configuration, TOOLS_SECTION).map((row) => row.name)]);
}
