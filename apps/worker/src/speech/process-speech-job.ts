import type { Job } from 'bullmq';
import { AppError, ownValue, type BlobStore, type Catalog, type Logger } from '@relay/core';
import { speechCost } from '@relay/billing';
import type { JobLife } from '@relay/life';
import { fileIdOf, sampleRateOf, SPEECH, speechJobSchema, storageKeyOf, type SpeechJob, type SpeechJobResult } from '@relay/jobs';
import { putBufferToStore, storeError, type StoreRetry } from '../storage/copy-to-store.js';
import type { WorkerMetrics } from '../metrics.js';
import type { UpstreamCalls } from '../channels/upstream-calls.js';
import { audioFile } from './audio-file.js';
import { createVendorModels } from './vendor-model.js';

export interface SpeechJobDeps {
  catalog: Catalog;
  /** Its begin, calls over (the next job takes its place while this one stores) and charge. */
  life: Pick<JobLife, 'begin' | 'callsOver' | 'settle'>;
  metrics: WorkerMetrics;
  /** Upstream calls through the channels serving the model. */
  upstream: UpstreamCalls;
  store: BlobStore;
  /** How long a paid clip is kept in memory and retried while the store is away. */
  storeRetry: StoreRetry;
  log: Logger;
}

/** The Gemini body goes upstream as the client wrote it, minus what only the relay reads. */
function upstreamBody(request: SpeechJob['request']) {
  const { model: _model, ...rest } = request;
  return rest;
}

export function createSpeechProcessor(deps: SpeechJobDeps) {
  const vendorModels = createVendorModels(deps.log);
  return async (job: Job): Promise<SpeechJobResult> => {
    const { meta, model: modelId, request, output } = speechJobSchema.parse(job.data);
    const model = ownValue(deps.catalog.speechModels, modelId);
    if (!model) throw new AppError('invalid_request', `model ${modelId} is no longer configured`, { param: 'model', retryable: false });
    const log = deps.log.child({ jobId: job.id, requestId: meta.requestId, model: modelId });

    const {
      value: { value: speech, vendorModel },
      channel,
    } = await deps.upstream.speech(modelId, async (upstream, vendorModel) => {
      await deps.life.begin(job.id!);
      return vendorModels.call(modelId, model, vendorModel, (chosen) => upstream.synthesize(chosen, upstreamBody(request)));
    });
    deps.life.callsOver(job);
    const sampleRate = sampleRateOf(speech.mimeType);
    const audio = await audioFile(speech.pcm, sampleRate, output);
    const key = storageKeyOf(job.id!, 0, audio.extension);
    try {
      await putBufferToStore(deps.store, key, audio.bytes, audio.contentType, deps.storeRetry);
    } catch (cause) {
      throw storeError('the audio', cause);
    }
    const { durationMs } = audio;
    const { promptTokenCount, candidatesTokenCount } = speech.usageMetadata;
    const { charged, applied } = await deps.life.settle(job, {
      accountId: meta.accountId,
      amount: speechCost(model, promptTokenCount, candidatesTokenCount),
      units: `in:${promptTokenCount},out:${candidatesTokenCount}`,
      channel,
    });
    if (applied) deps.metrics.charged.inc({ model: modelId }, charged);
    deps.metrics.bytesStored.inc({ queue: SPEECH.id }, audio.bytes.length);
    log.info({ durationMs, bytes: audio.bytes.length, format: audio.extension, charged, channel, vendorModel }, 'speech stored');
    return {
      file: { index: 0, fileId: fileIdOf(job.id!, 0, audio.extension), bytes: audio.bytes.length, contentType: audio.contentType },
      mimeType: speech.mimeType,
      sampleRate,
      durationMs,
      finishReason: speech.finishReason,
      usageMetadata: speech.usageMetadata,
      responseId: speech.responseId,
    };
  };
}
