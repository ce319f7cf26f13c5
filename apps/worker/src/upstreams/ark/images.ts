import type { CallObserver } from '../../metrics.js';
import { postJson, type UpstreamTarget } from '../post-json.js';
import { readArkAnswer } from './answer.js';
import { toUpstreamError } from './errors.js';
import { streamArkImages, type StreamOptions } from './images-stream.js';
import type { ArkImageRequest, ArkImageResponse } from './schema.js';
import type { ArkStreamEvent } from './stream-events.js';

export { isModerationCode } from './errors.js';

/** The one capability the image queue needs from an upstream, answered whole or image by image. */
export interface ImageGeneration {
  generate(body: ArkImageRequest): Promise<ArkImageResponse>;
  /** The same call with `stream: true`: see streamArkImages. */
  generateStream(body: ArkImageRequest, options?: StreamOptions): AsyncGenerator<ArkStreamEvent, void, undefined>;
}

export function createArkImages(upstream: UpstreamTarget, observe: CallObserver = () => {}): ImageGeneration {
  const url = `${upstream.baseUrl}/images/generations`;
  return {
    async generate(body) {
      // a whole answer: `stream` is left out (undefined drops from the JSON)
      const answer = await postJson(
        url,
        { ...body, stream: undefined },
        { authorization: `Bearer ${upstream.apiKey}` },
        upstream.timeoutMs,
        observe,
      );
      if (answer.status !== 200) throw toUpstreamError(answer.status, answer.body, answer.headers.get('retry-after'), upstream.apiKey);
      return readArkAnswer(answer.body, body.model, upstream.apiKey);
    },
    generateStream: (body, options) => streamArkImages(upstream, body, observe, options),
  };
}
