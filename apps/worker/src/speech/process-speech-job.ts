import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { AppError, inSpan, ownValue, type BlobStore, type Catalog, type FreshFile, type Logger } from '@relay/core';
import { speechCost } from '@relay/billing';
import type { JobLife, PartsWriter } from '@relay/life';
import {
  fileIdOf,
  sampleRateOf,
  SPEECH,
  speechJobSchema,
  storageKeyOf,
  type RelayJob,
  type SpeechJob,
  type SpeechJobResult,
} from '@relay/jobs';
import { putBufferToStore, storeError, type StoreRetry } from '../storage/copy-to-store.js';
import type { WorkerMetrics } from '../metrics.js';
import type { UpstreamCalls } from '../channels/upstream-calls.js';
import { audioFile } from './audio-file.js';
import { createVendorModels } from './vendor-model.js';
import { liveSpeech } from './live-speech.js';
import { unlessStopped } from '../stopping.js';
import { readSpeechCheckpoint, speechCheckpointOf, type SpeechCheckpoint } from './checkpoint.js';
import type { SynthesizedSpeech } from '../upstreams/speech.js';

export interface SpeechJobDeps {
  catalog: Catalog;
  /** Its begin, calls over (the next job takes its place while this one stores) and charge (with its checkpoint). */
  life: Pick<JobLife, 'beginning' | 'stopping' | 'callsOver' | 'settle'>;
  metrics: WorkerMetrics;
  /** Upstream calls through the channels serving the model. */
  upstream: UpstreamCalls;
  store: BlobStore;
  /** How long a paid clip is kept in memory and retried while the store is away. */
  storeRetry: StoreRetry;
  /** Where a job whose waiter streams it sends its audio as it is made (none: nobody waits for it). */
  parts: (job: RelayJob<'speech'>, take: string) => PartsWriter | undefined;
  log: Logger;
}

/** The Gemini body goes upstream as the client wrote it, minus what only the relay reads. */
function upstreamBody(request: SpeechJob['request']) {
  const { model: _model, ...rest } = request;
  return rest;
}

export function createSpeechProcessor(deps: SpeechJobDeps) {
  const vendorModels = createVendorModels(deps.log);
  return async (job: RelayJob<'speech'>): Promise<SpeechJobResult> => {
    const { meta, model: modelId, request, output, style, live: streamed } = speechJobSchema.parse(job.data);
    const model = ownValue(deps.catalog.speechModels, modelId);
    if (!model) throw new AppError('invalid_request', `model ${modelId} is no longer configured`, { param: 'model', retryable: false });
    const log = deps.log.child({ jobId: job.id, requestId: meta.requestId, model: modelId });

    // charged for the clip stored, once: a second settle of the same job changes nothing
    const settle = async ({ result, charge }: SpeechCheckpoint['stored'], checkpoint?: SpeechCheckpoint, fresh?: FreshFile[]) => {
      const { ready, settled } = deps.life.settle(job, { accountId: meta.accountId, ...charge }, checkpoint, fresh);
      settled.then(
        ({ charged, applied }) => {
          if (applied) deps.metrics.charged.inc({ model: modelId }, charged);
          log.info({ durationMs: result.durationMs, bytes: result.file.bytes, charged, channel: charge.channel }, 'speech stored');
        },
        () => undefined, // told by `ready`, or where a charge held for the job's end is sent
      );
      await ready;
      return result;
    };
    // stored by an earlier run whose worker stopped before BullMQ heard it finished: answered from it
    const stored = readSpeechCheckpoint(job.progress);
    if (stored) return settle(stored);

    // each run of the job is a take of its own: a waiter that heard an earlier one knows this one starts over
    const writer = streamed ? deps.parts(job, randomBytes(6).toString('hex')) : undefined;
    const live = writer && liveSpeech(writer, output);
    let speech: SynthesizedSpeech;
    let vendorModel: string;
    let channel: string;
    try {
      ({
        value: { value: speech, vendorModel },
        channel,
      } = await unlessStopped(job, deps.life, () =>
        deps.upstream.call(
          'speech',
          modelId,
          (upstream, vendorModel) =>
            vendorModels.call(modelId, model, vendorModel, (chosen) =>
              upstream.synthesize(chosen, upstreamBody(request), { ...(style ? { style } : {}), ...(live ? { hear: live.hear } : {}) }),
            ),
          (lease) => deps.life.beginning(job, lease),
        ),
      ));
      await live?.finish();
    } catch (error) {
      live?.abandon();
      throw error;
    }
    deps.life.callsOver(job);
    const sampleRate = sampleRateOf(speech.mimeType);
    trace.getActiveSpan()?.setAttributes({
      'gen_ai.response.model': vendorModel,
      'gen_ai.usage.input_tokens': speech.usageMetadata.promptTokenCount,
      'gen_ai.usage.output_tokens': speech.usageMetadata.candidatesTokenCount,
      'relay.channel': channel,
    });
    const audio = await inSpan('relay.encode', { 'relay.format': output?.format ?? 'wav' }, () =>
      audioFile(speech.pcm, sampleRate, output),
    );
    const key = storageKeyOf(job.id!, 0, audio.extension);
    try {
      await inSpan('relay.store', { 'relay.file.bytes': audio.bytes.length }, () =>
        putBufferToStore(deps.store, key, audio.bytes, audio.contentType, deps.storeRetry),
      );
    } catch (cause) {
      throw storeError('the audio', cause);
    }
    deps.metrics.bytesStored.inc({ queue: SPEECH.id }, audio.bytes.length);
    const { promptTokenCount, candidatesTokenCount } = speech.usageMetadata;
    const done = speechCheckpointOf({
      result: {
        file: { index: 0, fileId: fileIdOf(job.id!, 0, audio.extension), bytes: audio.bytes.length, contentType: audio.contentType },
        mimeType: speech.mimeType,
        sampleRate,
        durationMs: audio.durationMs,
        finishReason: speech.finishReason,
        usageMetadata: speech.usageMetadata,
        responseId: speech.responseId,
      },
      charge: {
        amount: speechCost(model, promptTokenCount, candidatesTokenCount),
        units: `in:${promptTokenCount},out:${candidatesTokenCount}`,
        channel,
      },
    });
    // the clip is paid for and stored: kept with its charge, a run after this one answers it without the vendor;
    // its waiter (unless it heard the clip as it was made) takes its bytes from Redis instead of the store
    return settle(done.stored, done, streamed ? undefined : [{ key, bytes: audio.bytes, contentType: audio.contentType }]);
  };
}
