import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { expect, test } from 'vitest';
import { defaultCatalog } from './catalog-default.js';
import { loadCatalog } from './catalog.js';
import { refusePlaceholders } from './common.js';
import { ConfigError, envInt, envString, envUrl, parseEnv } from './env.js';
import { MAX_MICRO_UNITS } from '../money/money.js';

const schema = z.object({
  TOKEN: envString().optional(),
  BASE: envUrl().optional(),
  PREFIX: envString().default('relay'),
  PORT: envInt(0, 65535).default(8080),
});

test('an empty variable is unset: optional fields stay undefined, defaults apply', () => {
  expect(parseEnv(schema, { TOKEN: '', BASE: '', PREFIX: '', PORT: '' })).toEqual({ PREFIX: 'relay', PORT: 8080 });
  expect(parseEnv(schema, { TOKEN: 't', BASE: 'http://x:1', PREFIX: '{relay}', PORT: '9' })).toEqual({
    TOKEN: 't',
    BASE: 'http://x:1',
    PREFIX: '{relay}',
    PORT: 9,
  });
  expect(() => parseEnv(schema, { BASE: 'not a url', PORT: 'x' })).toThrow(/BASE[\s\S]*PORT/);
});

test('placeholder secrets are refused, unless compose runs the simulator profile', () => {
  const guarded = z
    .object({ ADMIN_TOKEN: envString().optional(), RELAY_COMPOSE_PROFILES: envString().optional() })
    .superRefine(refusePlaceholders(['ADMIN_TOKEN']));
  expect(() => parseEnv(guarded, { ADMIN_TOKEN: 'change-me-admin-token' })).toThrow(/ADMIN_TOKEN: still the placeholder/);
  expect(() => parseEnv(guarded, { ADMIN_TOKEN: 'changeme' })).toThrow(ConfigError);
  expect(parseEnv(guarded, { ADMIN_TOKEN: 'change-me-admin-token', RELAY_COMPOSE_PROFILES: 'simulator' }).ADMIN_TOKEN).toBe(
    'change-me-admin-token',
  );
  expect(parseEnv(guarded, { ADMIN_TOKEN: 's3cr3t-of-my-own' }).ADMIN_TOKEN).toBe('s3cr3t-of-my-own');
});

test('RELAY_CONFIG holds the catalog inline or names its file; either way a bad one is a clear error', () => {
  const tweaked = { ...defaultCatalog, speechModels: {} };
  expect(Object.keys(loadCatalog({ RELAY_CONFIG: JSON.stringify(tweaked) }).speechModels)).toEqual([]);
  const file = join(mkdtempSync(join(tmpdir(), 'relay-catalog-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(tweaked));
  expect(Object.keys(loadCatalog({ RELAY_CONFIG: file }).speechModels)).toEqual([]);
  expect(Object.keys(loadCatalog({ RELAY_CONFIG: '' }).imageModels)).toEqual(Object.keys(defaultCatalog.imageModels));
  expect(() => loadCatalog({ RELAY_CONFIG: '{"imageModels":' })).toThrow(/inline JSON does not parse/);
  expect(() => loadCatalog({ RELAY_CONFIG: '/nowhere/catalog.json' })).toThrow(/cannot read \/nowhere\/catalog.json/);
});

test("a speech model's defaultVoice and openaiVoices must name its own voices", () => {
  const model = defaultCatalog.speechModels['vendor-2.5-flash-preview-tts'];
  const withModel = (changes: Record<string, unknown>) =>
    JSON.stringify({ ...defaultCatalog, speechModels: { 'vendor-2.5-flash-preview-tts': { ...model, ...changes } } });
  expect(
    loadCatalog({ RELAY_CONFIG: withModel({ defaultVoice: 'Puck' }) }).speechModels['vendor-2.5-flash-preview-tts']?.defaultVoice,
  ).toBe('Puck');
  expect(() => loadCatalog({ RELAY_CONFIG: withModel({ defaultVoice: 'Nobody' }) })).toThrow(/defaultVoice/);
  expect(() => loadCatalog({ RELAY_CONFIG: withModel({ openaiVoices: { alloy: 'Nobody' } }) })).toThrow(/openaiVoices/);
});

test("a speech model's retirement names a successor, and a sunset date (or date-time) if any", () => {
  const model = defaultCatalog.speechModels['vendor-2.5-flash-preview-tts'];
  const withRetirement = (retirement: unknown) =>
    JSON.stringify({ ...defaultCatalog, speechModels: { 'vendor-2.5-flash-preview-tts': { ...model, retirement } } });
  expect(
    loadCatalog({ RELAY_CONFIG: withRetirement({ sunset: '2027-01-06', successor: 'gemini-3.8-flash-tts' }) }).speechModels,
  ).toBeDefined();
  expect(loadCatalog({ RELAY_CONFIG: withRetirement({ sunset: '2027-01-06T08:00:00-08:00', successor: 'x' }) }).speechModels).toBeDefined();
  expect(loadCatalog({ RELAY_CONFIG: withRetirement({ successor: 'x' }) }).speechModels).toBeDefined();
  expect(() => loadCatalog({ RELAY_CONFIG: withRetirement({ sunset: 'soon', successor: 'x' }) })).toThrow(/sunset/);
  expect(() => loadCatalog({ RELAY_CONFIG: withRetirement({ sunset: '2027-01-06' }) })).toThrow(/successor/);
});

test('every price of the catalog is held to the ceiling of every amount (MAX_MICRO_UNITS)', () => {
  const [imageId, image] = Object.entries(defaultCatalog.imageModels)[0]!;
  const [speechId, speech] = Object.entries(defaultCatalog.speechModels)[0]!;
  const withImage = (changes: Record<string, unknown>) =>
    JSON.stringify({ ...defaultCatalog, imageModels: { ...defaultCatalog.imageModels, [imageId]: { ...image, ...changes } } });
  const withSpeechPrice = (price: Record<string, number>) =>
    JSON.stringify({ ...defaultCatalog, speechModels: { ...defaultCatalog.speechModels, [speechId]: { ...speech, price } } });
  expect(loadCatalog({ RELAY_CONFIG: withImage({ price: MAX_MICRO_UNITS }) }).imageModels[imageId]?.price).toBe(MAX_MICRO_UNITS);
  expect(() => loadCatalog({ RELAY_CONFIG: withImage({ price: MAX_MICRO_UNITS + 1 }) })).toThrow(/price is at most 1000000000000000/);
  expect(() => loadCatalog({ RELAY_CONFIG: withImage({ webSearchPrice: Number.MAX_SAFE_INTEGER }) })).toThrow(/webSearchPrice/);
  expect(() => loadCatalog({ RELAY_CONFIG: withSpeechPrice({ inputPerMillion: 1, outputPerMillion: 2 ** 60 }) })).toThrow(
    /outputPerMillion/,
  );
});

test('a config file that only tunes keeps the built-in catalog; its knobs and limits are checked like the catalog', () => {
  const file = loadCatalog({
    RELAY_CONFIG: JSON.stringify({ queues: { images: { maxConcurrent: 8 } }, tuning: { worker: { jobLockMs: 60_000 } } }),
  });
  expect(Object.keys(file.imageModels)).toEqual(Object.keys(defaultCatalog.imageModels));
  expect(file.queues.images).toEqual({ maxConcurrent: 8, maxPerMinute: 0 });
  expect(file.tuning.worker.jobLockMs).toBe(60_000);
  // what the file does not name is the named default
  expect(file.tuning.worker.stalledCheckMs).toBe(30_000);
  expect(file.tuning.worker.breaker.cooldownMs).toBe(10_000);
  expect(file.tuning.api.jobAttempts).toBe(4);
  expect(loadCatalog({}).tuning).toEqual(loadCatalog({ RELAY_CONFIG: '{}' }).tuning);
  expect(() => loadCatalog({ RELAY_CONFIG: JSON.stringify({ tuning: { worker: { jobLockMs: 10 } } }) })).toThrow(/jobLockMs/);
  expect(() => loadCatalog({ RELAY_CONFIG: JSON.stringify({ tuning: { worker: { jobLockMS: 60_000 } } }) })).toThrow(/jobLockMS/);
});

test("a model is called through an upstream whose vendor serves the model's capability", () => {
  const catalog = structuredClone(defaultCatalog) as { imageModels: Record<string, { upstream: string }> };
  const [id] = Object.keys(catalog.imageModels);
  catalog.imageModels[id!]!.upstream = 'gemini';
  expect(() => loadCatalog({ RELAY_CONFIG: JSON.stringify(catalog) })).toThrow(
    /upstream "gemini" speaks gemini, which serves speech, not images/,
  );
});
