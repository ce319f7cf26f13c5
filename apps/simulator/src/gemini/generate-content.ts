import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { SimContext } from '../context.js';
import type { CallSeen } from '../stats.js';
import { playRequestFault } from '../faults.js';
import { AUDIO_TOKENS_PER_SECOND, hasDirection, SAMPLE_RATE, secondsFor, spokenText, synthesize } from './audio.js';
import { sendClipStream } from './speech-stream.js';
import { defaultMessage, sendBadRequest, sendGoogleError, sendQuotaExceeded, sendQuotaFailure, TRIED_TO_GENERATE_TEXT } from './errors.js';
import { ttsModel } from './models.js';
import { validateTts } from './validate.js';

/** Seconds left in this minute, as a per-minute quota's RetryInfo gives them ("26s"). */
const restOfMinute = () => `${60 - new Date().getUTCSeconds()}s`;

/** POST /v1beta/models/{model}:generateContent and :streamGenerateContent for TTS models. */
export function createGenerateContentHandler(ctx: SimContext) {
  const { config, faults, stats } = ctx;
  const minute: number[] = [];

  function respond(req: Request, res: Response, stream: boolean, payload: unknown) {
    if (!stream) return void res.json(payload);
    if (req.query.alt === 'sse') {
      // the 2.5 preview sends the whole clip as one event, then closes the stream
      res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
      // a mislabelled stream goes out under the label as given (express would add a charset)
      const mislabel = faults.takeShapeFault('mislabel', 'speech');
      if (mislabel) res.setHeader('Content-Type', mislabel.contentType);
      return void res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
    }
    res.json([payload]);
  }

  return async (req: Request, res: Response) => {
    const [model = '', action = ''] = String(req.params.modelAction).split(':');
    const retired = (config.SIM_RETIRED_MODELS ?? '').split(',').some((name) => name.trim() === model);
    const spec = retired ? undefined : ttsModel(model);
    // a retired model's call reached the vendor: the call log names it
    if (retired) res.locals.seen = { model } satisfies CallSeen;
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
    if (fault?.type === 'quota') return sendQuotaFailure(res, model, fault.period, fault.retryDelay ?? restOfMinute());
    const checked = validateTts(req.body, model, spec);
    if (!('text' in checked)) {
      if (checked.bare) return sendGoogleError(res, 400, checked.message ?? defaultMessage(400));
      return sendBadRequest(res, checked.field, checked.description, checked.message);
    }
    if (spec.voiceRequired && !checked.voiced) return sendGoogleError(res, 400, 'Request contains an invalid argument.');
    const now = Date.now();
    while (minute.length && minute[0]! <= now - 60_000) minute.shift();
    if (config.SIM_SPEECH_RPM > 0 && minute.length >= config.SIM_SPEECH_RPM) {
      return sendQuotaExceeded(res, model, `${Math.ceil((minute[0]! + 60_000 - now) / 1000)}s`);
    }
    minute.push(now);
    await sleep(config.SIM_LATENCY_MS);
    // the model answered text instead of audio: refused after it ran, as the real one is
    if (fault?.type === 'refuse-text' && (fault.when === 'always' || !hasDirection(checked.text))) {
      return sendGoogleError(res, 400, TRIED_TO_GENERATE_TEXT);
    }

    // the model reads the whole text and its styles (prompt tokens) and speaks the words: all of
    // them (3.8), or what follows a leading direction (earlier models)
    res.locals.seen = { model, styles: checked.styles } satisfies CallSeen;
    const spoken = spec.verbatim ? checked.text : spokenText(checked.text);
    const promptTokens = Math.max(1, Math.ceil((checked.text.length + checked.styles.join('').length) / 4));
    const audioTokens = Math.round(secondsFor(spoken) * AUDIO_TOKENS_PER_SECOND);
    const responseId = randomBytes(16).toString('base64url').slice(0, 22);
    const stream = action === 'streamGenerateContent';
    if (fault?.type === 'no-content') {
      // as google-gemini/cookbook#1231 pasted it: no parts at all, and the audio billed anyway
      return respond(req, res, stream, {
        candidates: [{ content: {}, finishReason: 'OTHER' }],
        usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: audioTokens },
        modelVersion: model,
        responseId,
      });
    }
    const mimeType = faults.takeShapeFault('mime', 'speech')?.mimeType ?? spec.mimeType;
    // empty-audio: a success with no samples (the 44-byte WAVs of unicef/adt-studio#849), billed all the same
    const pcm = fault?.type === 'empty-audio' ? Buffer.alloc(0) : synthesize(spoken);
    const usageMetadata = {
      promptTokenCount: promptTokens,
      candidatesTokenCount: audioTokens,
      totalTokenCount: promptTokens + audioTokens,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: audioTokens }],
    };
    const chunkBytes = spec.chunkSeconds ? Math.round(spec.chunkSeconds * SAMPLE_RATE) * 2 : Math.max(1, pcm.length);
    if (!stream && config.SIM_SPEECH_CHUNK_MS > 0) {
      // the clip takes as long to make whether it is streamed or not: a whole answer waits for its last piece
      await sleep((Math.ceil(pcm.length / chunkBytes) - 1) * config.SIM_SPEECH_CHUNK_MS);
    }
    if (stream) {
      return sendClipStream(
        req,
        res,
        { pcm, mimeType, chunkBytes, usageMetadata, modelVersion: model, responseId },
        faults,
        config.SIM_SPEECH_CHUNK_MS,
      );
    }
    res.json({
      candidates: [
        { content: { role: 'model', parts: [{ inlineData: { mimeType, data: pcm.toString('base64') } }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata,
      modelVersion: model,
      responseId,
    });
  };
}
