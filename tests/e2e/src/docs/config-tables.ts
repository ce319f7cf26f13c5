import type { z } from 'zod';
import { apiEnvSchema } from '@relay/api';
import { CAPABILITIES, catalogSchema, loadCatalog, queueLimitsSchema } from '@relay/core';
import { embeddedEnvSchema } from '@relay/embedded/config';
import { simulatorEnvSchema } from '@relay/simulator';
import { workerEnvSchema } from '@relay/worker';
import type { MarkdownDoc, Table } from './markdown.js';

/** A variable and its default as the code has it (undefined: optional, no default). */
export type Expected = Map<string, string | undefined>;

/** A default as the table writes it: strings as they are, numbers and booleans as JSON (8080, 0.5, true). */
const written = (value: unknown) => (value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value));

function defaults(shape: Record<string, z.ZodType>, only?: (name: string) => boolean): Expected {
  const out: Expected = new Map();
  for (const [name, field] of Object.entries(shape)) {
    if (only && !only(name)) continue;
    const parsed = field.safeParse(undefined);
    out.set(name, written(parsed.success ? parsed.data : undefined));
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

/**
 * Every variable the relay's own processes (the api and the worker) read: their schemas' and the
 * catalog's upstream variables (`baseUrlEnv`, `apiKeyEnv`). Issue 34 bounds it to 40.
 */
export function relayVariables(): Set<string> {
  const names = new Set([...Object.keys(apiEnvSchema.shape), ...Object.keys(workerEnvSchema.shape)]);
  for (const upstream of Object.values(loadCatalog({}).upstreams)) {
    names.add(upstream.apiKeyEnv);
    if (upstream.baseUrlEnv) names.add(upstream.baseUrlEnv);
  }
  return names;
}

/** The configuration page's section on the config file (RELAY_CONFIG). */
export const FILE_SECTION = 'The config file';

/** The parts of the file that are the catalog, described in a list of their own rather than tables. */
export const CATALOG_PARTS: string[] = ['upstreams', ...Object.values(CAPABILITIES).map((c) => c.models)];

interface ObjectSchema {
  shape: Record<string, unknown>;
  parse(value: unknown): unknown;
}

/** The object schema under a field's optional/default/prefault wrappers, if it is one. */
function objectOf(field: unknown): ObjectSchema | undefined {
  let type = field as { shape?: unknown; unwrap?: () => unknown };
  while (type.shape === undefined && typeof type.unwrap === 'function') type = type.unwrap() as typeof type;
  return type.shape === undefined ? undefined : (type as ObjectSchema);
}

/** Each key of an object schema, nested objects' keys written with a dot (`breaker.consecutive`), and what `{}` parses to. */
function keyDefaults(schema: ObjectSchema): Expected {
  const out: Expected = new Map();
  const walk = (shape: Record<string, unknown>, parsed: Record<string, unknown>, prefix: string) => {
    for (const [key, field] of Object.entries(shape)) {
      const nested = objectOf(field);
      if (nested) walk(nested.shape, (parsed[key] ?? {}) as Record<string, unknown>, `${prefix}${key}.`);
      else out.set(`${prefix}${key}`, written(parsed[key]));
    }
  };
  walk(schema.shape, schema.parse({}) as Record<string, unknown>, '');
  return out;
}

/**
 * Each subsection of the config file's section (by its heading: `queues`, `tuning.api`, ...) and
 * the keys it must list with their defaults, from the file's schema: `queues` one capability's
 * limits, `tuning` one table per part, any other section of the file besides the catalog its own.
 */
export function expectedFileSections(): Map<string, Expected> {
  const out = new Map<string, Expected>();
  for (const [part, field] of Object.entries(catalogSchema.shape as Record<string, unknown>)) {
    if (CATALOG_PARTS.includes(part)) continue;
    const object = objectOf(field);
    if (part === 'queues') out.set(part, keyDefaults(queueLimitsSchema.unwrap()));
    else if (part === 'tuning' && object) {
      for (const [name, tuning] of Object.entries(object.shape)) out.set(`tuning.${name}`, keyDefaults(objectOf(tuning)!));
    } else out.set(part, object ? keyDefaults(object) : new Map([[`(${part}: a section this test cannot read)`, undefined]]));
  }
  return out;
}

/** The section listing what the CLIs, compose, the tests and the benchmarks read, each with its files. */
export const TOOLS_SECTION = 'Read by the tools';

export interface Row {
  /** The variable: the row's first cell, one code span. */
  name: string;
  /** The second cell: a default (schema sections) or the files that read it (the tools section). */
  second: Table['rows'][number][number];
}

/**
 * The rows of the tables under `section` (and, given one, its level-3 `subsection`); a first cell
 * that is not one code span is kept as '' to fail loudly.
 */
export function rowsOf(doc: MarkdownDoc, section: string, subsection?: string): Row[] {
  return doc.tables
    .filter((table) => table.section === section && (subsection === undefined || table.subsection === subsection))
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
