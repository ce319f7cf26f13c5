/**
 * Run as its own process by stream.test.ts: stops a stream of every format after its first
 * chunk, prints what it saw, then does nothing more. Anything an early stop left running (a
 * native handle, a thread-safe callback, a child process) would keep this process alive.
 */
import { encodeSpeechStream, speechFormatSchema } from '../index.js';
import { sinePcm } from './signals.js';

const clip = sinePcm(440, 60);
const seen: Record<string, number> = {};
for (const format of speechFormatSchema.options) {
  for (let round = 0; round < 3; round++) {
    for await (const chunk of encodeSpeechStream(clip, { format, speed: round === 0 ? 1 : 1.5 })) {
      seen[format] = (seen[format] ?? 0) + chunk.length;
      break;
    }
  }
}
process.stdout.write(JSON.stringify({ seen, resources: process.getActiveResourcesInfo() }));
