import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { SimContext } from '../context.js';
import type { CallSeen } from '../stats.js';
import { playRequestFault } from '../faults.js';
import { AUDIO_TOKENS_PER_SECOND, SAMPLE_RATE, secondsFor, synthesize } from './audio.js';
import { defaultMessage, sendBadRequest, sendGoogleError, sendQuotaExceeded } from './errors.js';
import { ttsModel } from './models.js';
import { validateTts } from './validate.js';

function respond(req: Request, res: Response, stream: boolean, payload: unknown) {
  if (!stream) return void res.json(payload);
  if (req.query.alt === 'sse') {
    // the 2.5 preview sends the whole clip as one event, then closes the stream
    res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
    return void res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
  }
  res.json([payload]);
}

/** POST /v1beta/models/{model}:generateContent and :streamGenerateContent for TTS models. */
export function createGenerateContentHandler(ctx: SimContext) {
  const { config, faults, stats } = ctx;
  const minute: number[] = [];
  return async (req: Request, res: Response) => {
    const [model = '', action = ''] = String(req.params.modelAction).split(':');
    const spec = ttsModel(model);
    if (!['generateContent', 'streamGenerateContent'].includes(action) || !spec) {
      return sendGoogleError(
        res,
        404,
        `models/${model} is not found for API version v1beta, or is not supported for ${action || 'this method'}.`,
      );
    }
    stats.requests.speech += 1;
    res.locals.seen = { model } satisfies CallSeen;
    const fault = await playRequestFault(faults, 'speech', req);
    if (fault === 'gone') return;
    if (fault?.type === 'error') {
      if (fault.status === 429) return sendQuotaExceeded(res, model, fault.retryDelay ?? '38s');
      return sendGoogleError(res, fault.status, defaultMessage(fault.status));
    }
    const checked = validateTts(req.body);
    if (!('text' in checked)) return sendBadRequest(res, checked.field, checked.description, checked.message);
    if (spec.voiceRequired && !checked.voiced) return sendGoogleError(res, 400, 'Request contains an invalid argument.');
    const now = Date.now();
    while (minute.length && minute[0]! <= now - 60_000) minute.shift();
    if (config.SIM_SPEECH_RPM > 0 && minute.length >= config.SIM_SPEECH_RPM) {
      return sendQuotaExceeded(res, model, `${Math.ceil((minute[0]! + 60_000 - now) / 1000)}s`);
    }
    minute.push(now);
    await sleep(config.SIM_LATENCY_MS);

    const promptTokens = Math.max(1, Math.ceil(checked.text.length / 4));
    const responseId = randomBytes(16).toString('base64url').slice(0, 22);
    if (fault?.type === 'no-content') {
      return respond(req, res, action === 'streamGenerateContent', {
        candidates: [{ finishReason: 'OTHER', index: 0 }],
        usageMetadata: {
          promptTokenCount: promptTokens,
          totalTokenCount: promptTokens,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
        },
        modelVersion: model,
        responseId,
      });
    }
    const pcm = synthesize(checked.text);
    const audioTokens = Math.round(secondsFor(checked.text) * AUDIO_TOKENS_PER_SECOND);
    respond(req, res, action === 'streamGenerateContent', {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ inlineData: { mimeType: `audio/L16;codec=pcm;rate=${SAMPLE_RATE}`, data: pcm.toString('base64') } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: promptTokens,
        candidatesTokenCount: audioTokens,
        totalTokenCount: promptTokens + audioTokens,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
        candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: audioTokens }],
      },
      modelVersion: model,
      responseId,
    });
  };
}
