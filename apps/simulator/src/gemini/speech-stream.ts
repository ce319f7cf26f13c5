import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { FaultBook, StreamFault } from '../faults.js';

export interface StreamedClip {
  pcm: Buffer;
  mimeType: string;
  /** Bytes of audio an event carries: the model's chunk, the whole clip for the 2.5 previews. */
  chunkBytes: number;
  usageMetadata: object;
  modelVersion: string;
  responseId: string;
}

/**
 * A clip as `streamGenerateContent` sends it while the model speaks: one GenerateContentResponse
 * per chunk of audio, the last with `finishReason` and the usage. With `alt=sse` each is a
 * `data:` event; without, the answer is a JSON array written element by element. A speech
 * stream fault holds the answer after `after` chunks (until POST /_sim/release) or cuts it there.
 */
export async function sendClipStream(req: Request, res: Response, clip: StreamedClip, faults: FaultBook, spacingMs: number): Promise<void> {
  const sse = req.query.alt === 'sse';
  let fault: StreamFault | undefined = faults.takeStreamFault('speech');
  const count = Math.max(1, Math.ceil(clip.pcm.length / clip.chunkBytes));
  res.status(200).set('Cache-Control', 'no-cache');
  if (sse) {
    res.type('text/event-stream');
    // a mislabelled stream goes out under the label as given (express would add a charset)
    const mislabel = faults.takeShapeFault('mislabel', 'speech');
    if (mislabel) res.setHeader('Content-Type', mislabel.contentType);
  } else res.type('application/json');
  res.flushHeaders();
  if (!sse) res.write('[');
  for (let index = 0; index < count; index++) {
    if (fault && index >= fault.after) {
      if (fault.type === 'stream-drop') return void res.socket?.destroy();
      fault = undefined; // held once; the clip then goes on as it would have
      await faults.hold();
    }
    if (index > 0 && spacingMs > 0) await sleep(spacingMs);
    if (res.destroyed) return;
    const last = index === count - 1;
    const data = clip.pcm.subarray(index * clip.chunkBytes, (index + 1) * clip.chunkBytes).toString('base64');
    const event = {
      candidates: [
        {
          content: { role: 'model', parts: [{ inlineData: { mimeType: clip.mimeType, data } }] },
          ...(last ? { finishReason: 'STOP' } : {}),
          index: 0,
        },
      ],
      ...(last ? { usageMetadata: clip.usageMetadata } : {}),
      modelVersion: clip.modelVersion,
      responseId: clip.responseId,
    };
    // each piece is on the wire before the next step: a cut after it loses none of it
    const text = sse ? `data: ${JSON.stringify(event)}\r\n\r\n` : `${index ? ',\n' : ''}${JSON.stringify(event)}`;
    await new Promise<void>((resolve) => res.write(text, () => resolve()));
  }
  res.end(sse ? '' : ']');
}
