import { encodeSpeechLive } from '@relay/audio';
import { contentTypeOf } from '@relay/audio/formats';
import { sampleRateOf, type SpeechJob } from '@relay/jobs';
import type { PartsWriter } from '@relay/life';
import type { HearSpeech } from '../upstreams/speech.js';

export interface LiveSpeech {
  /** Resolves once what this piece gave is on its way to the waiter: heard audio has gone out. */
  hear: HearSpeech;
  /** The clip is whole: what the encoder still holds goes out, then the parts stream ends. */
  finish(): Promise<void>;
  /** The clip will not be finished: the encoder is let go. */
  abandon(): void;
}

interface Waiting<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}
const waiting = <T>(): Waiting<T> => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

/**
 * A clip's audio on its way to the waiter while the vendor still speaks it: the vendor's PCM as
 * it comes (Gemini's door sends it on as it is), or encoded as it comes in the format and tempo
 * the job's output asks (OpenAI's door). Each piece is handed to the encoder one at a time, and
 * `hear` returns once the encoder asked for the next: by then what the piece gave is sent, so
 * the vendor's stream is read no faster than the audio goes out. What is sent is not what is
 * stored: the store keeps the file encoded whole (the headers a stream cannot fill in, filled in).
 */
export function liveSpeech(writer: PartsWriter, output: SpeechJob['output']): LiveSpeech {
  if (!output) {
    return { hear: (pcm, mimeType) => writer.send(mimeType, pcm), finish: () => writer.close(), abandon() {} };
  }
  const contentType = contentTypeOf(output.format);
  let offered = waiting<Buffer | undefined>();
  let taken = waiting<void>();
  let stopped = false;
  let pump: Promise<void> | undefined;
  let failure: Error | undefined;
  async function* pieces() {
    for (;;) {
      const pcm = await offered.promise;
      if (!pcm || stopped) return;
      offered = waiting();
      yield pcm;
      taken.resolve();
    }
  }
  const start = (sampleRate: number) =>
    (async () => {
      for await (const chunk of encodeSpeechLive(pieces(), { sampleRate, format: output.format, speed: output.speed })) {
        await writer.send(contentType, chunk);
      }
    })().catch((error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error));
      taken.resolve(); // a piece waiting on the encoder is not heard: it waits no more
    });
  // read through a call: the encoder may have failed while this side awaited
  const check = (): void => {
    if (failure) throw failure;
  };
  return {
    async hear(pcm, mimeType) {
      check();
      pump ??= start(sampleRateOf(mimeType));
      taken = waiting();
      offered.resolve(pcm);
      await taken.promise;
      check();
    },
    async finish() {
      offered.resolve(undefined);
      await pump;
      check();
      await writer.close();
    },
    abandon() {
      stopped = true;
      offered.resolve(undefined);
    },
  };
}
