import { describe, expect, test } from 'vitest';
import { renderImage } from '@relay/simulator';
import { NotAnImage, notAnImage, SNIFF_BYTES, sniffImage } from './sniff-image.js';

const jpeg = renderImage({ width: 16, height: 16, format: 'jpeg', watermark: false, hue: 0 });
const png = renderImage({ width: 16, height: 16, format: 'png', watermark: false, hue: 0 });
/** The smallest lossless WebP (1x1), as browsers' feature tests carry it. */
const webp = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
/** An extended WebP (VP8X chunk first), as an image with alpha or metadata opens. */
const webpExtended = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00', 'latin1'), Buffer.alloc(10)]);
const head = (file: Buffer) => file.subarray(0, SNIFF_BYTES);

describe('the formats the vendors make are told by their bytes', () => {
  test.each([
    ['JPEG', jpeg, 'jpeg'],
    ['PNG', png, 'png'],
    ['WebP (lossless)', webp, 'webp'],
    ['WebP (extended)', webpExtended, 'webp'],
  ])('%s', (_label, file, format) => {
    expect(sniffImage(head(file))).toBe(format);
    // whatever follows the head does not matter: the sniffer reads the head only
    expect(sniffImage(file)).toBe(format);
  });
});

describe('anything else is no image', () => {
  test.each([
    ['an HTML page', Buffer.from('<!doctype html><html><script>alert(document.cookie)</script></html>')],
    ['an SVG (markup that browsers run script in)', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')],
    ['an SVG after an XML declaration', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    [
      'an XML error page (a store refusing the link)',
      Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code></Error>'),
    ],
    ['JSON', Buffer.from('{"error":{"code":"InternalError","message":"try again"}}')],
    ['a GIF (the vendors make none)', Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(20)])],
    ['a BMP', Buffer.concat([Buffer.from('BM', 'latin1'), Buffer.alloc(30)])],
    ['a RIFF that is not WebP (WAV)', Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(20)])],
    ['a JPEG start with no segment after it', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0x00]), Buffer.alloc(20)])],
    ['a PNG signature without its IHDR chunk', Buffer.concat([png.subarray(0, 8), Buffer.alloc(20)])],
    ['an empty body', Buffer.alloc(0)],
    ['a JPEG cut short (3 bytes)', jpeg.subarray(0, 3)],
    ['a PNG cut short (its signature only)', png.subarray(0, 8)],
    ['a WebP cut short (its RIFF header only)', webp.subarray(0, 12)],
    ['a head one byte short of what the sniffer reads', jpeg.subarray(0, SNIFF_BYTES - 1)],
  ])('%s', (_label, bytes) => {
    expect(sniffImage(head(bytes))).toBeUndefined();
  });
});

describe('what arrived instead is named safely', () => {
  test('by its declared type and first bytes', () => {
    const error = notAnImage(Buffer.from('<!doctype html><html>'), 'text/html; charset=utf-8');
    expect(error).toBeInstanceOf(NotAnImage);
    expect(error.message).toBe("not an image (text/html, starts with '<!doctype ht')");
  });

  test('an empty body, and a short one whole', () => {
    expect(notAnImage(Buffer.alloc(0), 'image/jpeg', true).arrived).toBe('image/jpeg, an empty body');
    expect(notAnImage(Buffer.from('nope'), undefined, true).arrived).toBe("4 bytes, 'nope'");
  });

  test('bytes that are not printable, quotes and a forged type are never repeated as they came', () => {
    const error = notAnImage(Buffer.from("\u0000\u001b[31m'\\\r\nX-Evil: 1", 'latin1'), 'image/jpeg\r\nSet-Cookie: a=b');
    expect(error.arrived).toBe("starts with '\\x00\\x1b[31m\\x27\\x5c\\x0d\\x0aX-'");
    expect([...error.arrived].every((char) => char >= ' ' && char <= '~')).toBe(true);
  });
});
