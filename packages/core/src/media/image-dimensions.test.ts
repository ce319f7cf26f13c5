import { deflateSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { imageDimensions } from './image-dimensions.js';

function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr[16] = 8; // bit depth; colour type 0, the rest 0; CRC left 0: only the header is read
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, deflateSync(Buffer.alloc(4))]);
}

/** A JPEG's opening: SOI, an APP1 of `metadata` bytes (EXIF can be tens of KB), then a baseline frame header. */
function jpeg(width: number, height: number, metadata = 16): Buffer {
  const app1 = Buffer.alloc(4 + metadata);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(2 + metadata, 2);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof]);
}

function webp(chunk: 'VP8 ' | 'VP8L' | 'VP8X', width: number, height: number): Buffer {
  const b = Buffer.alloc(40);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(32, 4);
  b.write('WEBP', 8, 'latin1');
  b.write(chunk, 12, 'latin1');
  if (chunk === 'VP8X') {
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  } else if (chunk === 'VP8 ') {
    b.set([0x9d, 0x01, 0x2a], 23);
    b.writeUInt16LE(width, 26);
    b.writeUInt16LE(height, 28);
  } else {
    b[20] = 0x2f;
    b.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 21);
  }
  return b;
}

describe("an image's dimensions from its own header", () => {
  test.each([
    ['png', png(1760, 2368), { width: 1760, height: 2368 }],
    ['jpeg', jpeg(2048, 1152), { width: 2048, height: 1152 }],
    ['jpeg behind 60 KB of metadata', jpeg(1728, 2304, 60_000), { width: 1728, height: 2304 }],
    ['webp, lossy', webp('VP8 ', 1024, 768), { width: 1024, height: 768 }],
    ['webp, lossless', webp('VP8L', 4096, 4096), { width: 4096, height: 4096 }],
    ['webp, extended', webp('VP8X', 2720, 1536), { width: 2720, height: 1536 }],
  ])('%s', (_name, bytes, dimensions) => {
    expect(imageDimensions(bytes)).toEqual(dimensions);
  });

  test('a prefix that stops before the header, and anything that is no image, give nothing', () => {
    expect(imageDimensions(jpeg(10, 10, 60_000).subarray(0, 30_000))).toBeUndefined();
    expect(imageDimensions(png(10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageDimensions(webp('VP8X', 10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageDimensions(Buffer.from('<!doctype html><html>'))).toBeUndefined();
    expect(imageDimensions(Buffer.alloc(0))).toBeUndefined();
  });
});
