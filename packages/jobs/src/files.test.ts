import { expect, test } from 'vitest';
import { CAPABILITIES, capabilityOfJobId } from './doors/capabilities.js';
import { CONTENT_TYPES, FILE_ID_PATTERN, fileIdOf, isJobId, newJobId, parseFileId } from './files.js';

const capabilities = Object.values(CAPABILITIES);

test("every capability's job ids are job ids, and name their capability", () => {
  for (const capability of capabilities) {
    const jobId = newJobId(capability.kind);
    expect(isJobId(jobId)).toBe(true);
    expect(capabilityOfJobId(jobId)).toBe(capability);
  }
  for (const junk of ['job_0123456789abcdef0123456789abcdef', 'img_0123', 'img_0123456789ABCDEF0123456789ABCDEF', '']) {
    expect(isJobId(junk)).toBe(false);
  }
  expect(capabilityOfJobId(`job_${'0'.repeat(32)}`)).toBeUndefined();
});

test('a file id of any capability, in every stored format, parses to its job, slot and key', () => {
  for (const capability of capabilities) {
    const jobId = newJobId(capability.kind);
    for (const extension of Object.keys(CONTENT_TYPES)) {
      expect(parseFileId(fileIdOf(jobId, 3, extension))).toEqual({ jobId, index: 3, extension, key: `files/${jobId}/3.${extension}` });
    }
  }
  expect(parseFileId(`${newJobId('tts')}-0.ogg`)).toBeUndefined();
  expect(parseFileId(`job_${'0'.repeat(32)}-0.png`)).toBeUndefined();
});

test('file ids are found inside other text, as output lines carry them', () => {
  const speech = fileIdOf(newJobId('tts'), 0, 'mp3');
  const image = fileIdOf(newJobId('img'), 2, 'jpeg');
  const line = JSON.stringify({ url: `https://relay.example/files/${speech}`, data: [{ url: `https://relay.example/files/${image}` }] });
  const found = [...line.matchAll(new RegExp(`/files/(${FILE_ID_PATTERN})`, 'g'))].map((m) => m[1]);
  expect(found).toEqual([speech, image]);
});

test('job ids drawn across several refills of the random pool are all different and well formed', () => {
  const ids = Array.from({ length: 1_000 }, () => newJobId('img'));
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.every(isJobId)).toBe(true);
  // every hex digit turns up in every position: the 32 digits are all random, none left from an unfilled pool
  for (let at = 4; at < 36; at++) expect(new Set(ids.map((id) => id[at])).size).toBe(16);
});
