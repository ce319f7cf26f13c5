import { expect, test } from 'vitest';
import { createKeySealer } from './secret.js';

test('a sealed key opens with the same secret only, and never shows the key', () => {
  const sealer = createKeySealer('correct horse battery staple');
  const sealed = sealer.seal('ark-key-0123456789');
  expect(sealed).not.toContain('ark-key');
  expect(sealer.seal('ark-key-0123456789')).not.toBe(sealed); // a fresh IV each time
  expect(sealer.open(sealed)).toBe('ark-key-0123456789');
  expect(() => createKeySealer('another secret').open(sealed)).toThrow();
  const [v, iv, tag, body] = sealed.split('.');
  const flipped = Buffer.from(body!, 'base64url');
  flipped[0]! ^= 1;
  expect(() => sealer.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
  expect(() => sealer.open('plain-text')).toThrow(/not a sealed/);
});
