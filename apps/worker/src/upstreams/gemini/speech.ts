import type { SpeechRequest, UsageMetadata } from '@relay/jobs';
import type { CallObserver } from '../../metrics.js';
import { postJson, type UpstreamTarget } from '../post-json.js';
import { kindOfStatus, UpstreamError } from '../upstream-error.js';
import { geminiErrorSchema, geminiResponseSchema } from './schema.js';

export interface SynthesizedSpeech {
  pcm: Buffer;
  mimeType: string;
  finishReason: string;
  usageMetadata: UsageMetadata;
  responseId: string;
}

/** The one capability the speech queue needs from an upstream. */
export interface SpeechSynthesis {
  synthesize(upstreamModel: string, body: Omit<SpeechRequest, 'model'>): Promise<SynthesizedSpeech>;
}

const BLOCKED = ['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY'];

/** Gemini's RetryInfo.retryDelay, a protobuf Duration such as "38s" or "45.837906927s". */
function retryDelayMs(details: Array<Record<string, unknown>> | undefined): number | undefined {
  const info = details?.find((d) => String(d['@type']).endsWith('google.rpc.RetryInfo'));
  const delay = info?.retryDelay;
  const seconds = typeof delay === 'string' ? Number.parseFloat(delay) : Number.NaN;
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/** Gemini signals a bad key with 400 API_KEY_INVALID: that is the relay's key, not the caller's fault. */
function toUpstreamError(status: number, body: unknown): UpstreamError {
  const parsed = geminiErrorSchema.safeParse(body);
  const error = parsed.success ? parsed.data.error : { message: `upstream answered HTTP ${status}`, status: undefined, details: undefined };
  const reasons = (error.details ?? []).map((d) => d.reason);
  const relayAtFault = reasons.includes('API_KEY_INVALID') || error.status === 'FAILED_PRECONDITION';
  const kind = relayAtFault ? 'misconfigured' : kindOfStatus(status);
  return new UpstreamError(kind, error.message, { status, code: error.status, retryAfterMs: retryDelayMs(error.details) });
}

export function createGeminiSpeech(upstream: UpstreamTarget, observe?: CallObserver): SpeechSynthesis {
  return {
    async synthesize(upstreamModel, body) {
      const url = `${upstream.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:generateContent`;
      const answer = await postJson(url, body, { 'x-goog-api-key': upstream.apiKey }, upstream.timeoutMs, observe);
      if (answer.status !== 200) throw toUpstreamError(answer.status, answer.body);
      const parsed = geminiResponseSchema.safeParse(answer.body);
      if (!parsed.success) throw new UpstreamError('transient', 'upstream answered 200 with an unreadable body', { status: 200 });
      const { candidates, promptFeedback, usageMetadata, responseId } = parsed.data;
      const candidate = candidates[0];
      const blocked =
        promptFeedback?.blockReason ?? (BLOCKED.includes(candidate?.finishReason ?? '') ? candidate?.finishReason : undefined);
      if (blocked)
        throw new UpstreamError('refused', `the upstream refused the content (${blocked})`, {
          status: 400,
          code: blocked,
          moderation: true,
        });
      const parts = (candidate?.content?.parts ?? []).flatMap((p) => (p.inlineData ? [p.inlineData] : []));
      if (parts.length === 0) {
        throw new UpstreamError('unusable', `the upstream answered without audio (finishReason ${candidate?.finishReason ?? 'none'})`, {
          status: 200,
          code: candidate?.finishReason,
        });
      }
      return {
        pcm: Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64'))),
        mimeType: parts[0]!.mimeType,
        finishReason: candidate?.finishReason ?? 'STOP',
        usageMetadata,
        responseId: responseId ?? '',
      };
    },
  };
}
