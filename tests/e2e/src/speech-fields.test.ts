import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AppError, loadCatalog } from '@relay/core';
import { createDoors, type OpenAISpeechCall } from '@relay/jobs';
import { repoRoot } from '@relay/testkit';

/**
 * Every field of OpenAI's speech request (the openai SDK's own SpeechCreateParams, read at test
 * time: an SDK that gains a field fails here until the relay answers it) is mapped onto the
 * speech job or refused with a 400 naming it; docs/fields.md's speech table says the same.
 */
function sdkFields(name: string): string[] {
  const file = join(dirname(createRequire(import.meta.url).resolve('openai')), 'resources/audio/speech.d.ts');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  expect(start, `${name} in the openai SDK`).toBeGreaterThan(-1);
  return [...text.slice(start, text.indexOf('\n}', start)).matchAll(/^ {4}(\w+)\??:/gm)].map((m) => m[1]!);
}

const catalog = loadCatalog({});
const door = createDoors(catalog).all.find((d) => d.name === 'openai.audio.speech')!;
const BASE = { model: 'tts-1', voice: 'alloy', input: 'The lamp is lit.' };
const parse = (body: Record<string, unknown>): OpenAISpeechCall | AppError => {
  try {
    return door.parse({ path: '/v1/audio/speech', body: { ...BASE, ...body }, params: {}, query: {} }) as OpenAISpeechCall;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
};
const voiceOf = (call: OpenAISpeechCall) => call.request.generationConfig.speechConfig?.voiceConfig?.prebuiltVoiceConfig.voiceName;

/** What each field becomes on the speech job (mapped), checked on a value other than its default. */
const EXPECTED: Record<string, { relay: 'mapped' | 'refused'; body: Record<string, unknown>; holds?: (call: OpenAISpeechCall) => void }> = {
  model: {
    relay: 'mapped',
    body: { model: 'gpt-4o-mini-tts-2025-12-15' },
    // OpenAI's names mean the catalog's OpenAI default: the GA model in the built-in catalog
    holds: (call) => expect(call.model).toBe('vendor-3.8-flash-tts'),
  },
  input: {
    relay: 'mapped',
    body: { input: 'Hello there.' },
    holds: (call) => expect(call.request.contents[0]!.parts![0]!.text).toBe('Hello there.'),
  },
  voice: { relay: 'mapped', body: { voice: 'onyx' }, holds: (call) => expect(voiceOf(call)).toBe('Orus') },
  instructions: { relay: 'mapped', body: { instructions: 'Speak warmly.' }, holds: (call) => expect(call.style).toBe('Speak warmly') },
  response_format: { relay: 'mapped', body: { response_format: 'opus' }, holds: (call) => expect(call.output.format).toBe('opus') },
  speed: { relay: 'mapped', body: { speed: 1.5 }, holds: (call) => expect(call.output.speed).toBe(1.5) },
  stream_format: { relay: 'mapped', body: { stream_format: 'sse' }, holds: (call) => expect(call.sse).toBe(true) },
};

/** docs/fields.md's speech table: field -> what its row says the relay does. */
function documented(): Map<string, string> {
  const text = readFileSync(join(repoRoot, 'docs/fields.md'), 'utf8');
  const section = text.slice(text.indexOf('## Speech request fields'));
  return new Map([...section.matchAll(/^\| `(\w+)` \| ([a-z ]+) \|/gm)].map((m) => [m[1]!, m[2]!]));
}

const FIELDS = sdkFields('SpeechCreateParams');

describe('every speech request field has an answer', () => {
  test('the SDK types were read', () => {
    expect(FIELDS).toEqual(
      expect.arrayContaining(['input', 'model', 'voice', 'instructions', 'response_format', 'speed', 'stream_format']),
    );
  });

  test.each(FIELDS)('%s', (field) => {
    const expectation = EXPECTED[field];
    expect(expectation, `${field} is sent by OpenAI's clients but the relay has no answer for it`).toBeDefined();
    const outcome = parse(expectation!.body);
    if (expectation!.relay === 'refused') return void expect(outcome).toMatchObject({ param: field });
    expect(outcome).not.toBeInstanceOf(AppError);
    expectation!.holds!(outcome as OpenAISpeechCall);
  });

  test("a custom voice ({id}, OpenAI's own voices) is refused by name: the vendor has none of them", () => {
    expect(parse({ voice: { id: 'voice_123' } })).toMatchObject({ param: 'voice' });
  });

  test('docs/fields.md has a row for each, and no other', () => {
    const rows = documented();
    for (const field of FIELDS) expect(rows.get(field), field).toBe(EXPECTED[field]!.relay);
    expect([...rows.keys()].sort()).toEqual([...FIELDS].sort());
  });
});
