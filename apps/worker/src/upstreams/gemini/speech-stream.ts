import type { IncomingMessage } from 'node:http';
import type { SpeechRequest } from '@relay/jobs';
import type { CallObserver } from '../../metrics.js';
import { isEventStream, MAX_ERROR_BODY_BYTES, openPost, parseJson, readText, sseMessages } from '../event-stream.js';
import { describeNetworkError, type UpstreamTarget } from '../post-json.js';
import { sanitizeVendorText } from '../sanitize.js';
import { UpstreamError } from '../upstream-error.js';
import { toUpstreamError } from './errors.js';
import { geminiErrorSchema, geminiResponseSchema, type GeminiResponse } from './schema.js';

/** An event is a second or so of base64 PCM; the whole clip as one event (2.5 previews) is at most ~16 MB of PCM. */
const MAX_EVENT_CHARS = 32 * 1024 * 1024;
const IDLE = Symbol('no event within the deadline');

const readPiece = (data: unknown, secret: string): GeminiResponse => {
  // an error object inside a 200 stream is the vendor's failure, told as its error answers are
  if (geminiErrorSchema.safeParse(data).success) throw toUpstreamError(200, data, secret);
  const piece = geminiResponseSchema.safeParse(data);
  if (!piece.success) throw new UpstreamError('transient', 'upstream answered 200 with an unreadable body', { status: 200 });
  return piece.data;
};

/**
 * Gemini's `streamGenerateContent?alt=sse`: the clip's pieces (GenerateContentResponses, a
 * chunk of audio each, the usage with the last) as the model speaks them. A failure before the
 * stream is the UpstreamError `generateContent` would give; a break after it began (an end
 * without the model's finishReason included) is a transient one (the caller decides what the
 * audio already heard means). `timeoutMs` bounds the
 * wait for each piece, not the clip. An answer in JSON instead (one object, or the array form)
 * is read as the same pieces. Stopping the iteration early hangs up.
 */
export async function* streamGeminiSpeech(
  upstream: UpstreamTarget,
  upstreamModel: string,
  body: Omit<SpeechRequest, 'model'>,
  observe: CallObserver,
): AsyncGenerator<GeminiResponse, void, undefined> {
  const abort = new AbortController();
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => abort.abort(IDLE), upstream.timeoutMs);
  };
  const timedOut = () => abort.signal.reason === IDLE;
  const cutOff = (status: number) => (error: unknown) => {
    const reason = timedOut() ? `nothing within ${upstream.timeoutMs} ms` : describeNetworkError(error);
    throw new UpstreamError('transient', `upstream answer cut off: ${reason}`, { status });
  };
  let res: IncomingMessage | undefined;
  try {
    arm();
    const url = new URL(`${upstream.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:streamGenerateContent?alt=sse`);
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'x-goog-api-key': upstream.apiKey };
    try {
      res = await openPost(url, JSON.stringify(body), headers, abort.signal);
    } catch (error) {
      observe(timedOut() ? 'timeout' : 'network');
      const reason = timedOut() ? `no answer within ${upstream.timeoutMs} ms` : describeNetworkError(error);
      throw new UpstreamError('transient', `upstream unreachable: ${reason}`);
    }
    const status = res.statusCode ?? 0;
    observe(String(status));
    if (status !== 200 || !(await isEventStream(res).catch(cutOff(status)))) {
      const text = await readText(res, status === 200 ? undefined : MAX_ERROR_BODY_BYTES).catch(cutOff(status));
      if (status !== 200) throw toUpstreamError(status, parseJson(text), upstream.apiKey);
      clearTimeout(idle);
      const data = parseJson(text);
      for (const piece of Array.isArray(data) ? data : [data]) yield readPiece(piece, upstream.apiKey);
      return;
    }
    let finished = false;
    try {
      for await (const message of sseMessages(res, MAX_EVENT_CHARS)) {
        const piece = readPiece(parseJson(message.data), upstream.apiKey);
        finished ||= piece.candidates[0]?.finishReason !== undefined || piece.promptFeedback?.blockReason !== undefined;
        clearTimeout(idle);
        yield piece;
        arm();
      }
      // a cut connection can end the body quietly: only the model's finish says the clip is whole
      if (!finished) throw new Error('it ended before the model finished the clip');
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      const reason = timedOut() ? `no event within ${upstream.timeoutMs} ms` : describeNetworkError(error);
      throw new UpstreamError('transient', `the speech stream broke: ${sanitizeVendorText(reason, [upstream.apiKey])}`, { status: 200 });
    }
  } finally {
    clearTimeout(idle);
    if (res && !res.complete) abort.abort();
  }
}
