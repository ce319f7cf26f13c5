import type { Job } from 'bullmq';
import { AppError, ownValue, type BlobStore, type Catalog, type Logger } from '@relay/core';
import { imageCost, type Billing } from '@relay/billing';
import {
  CONTENT_TYPES,
  fileIdOf,
  imageJobSchema,
  storageKeyOf,
  type ImageJobResult,
  type StoredFile,
} from '@relay/jobs';
import { copyUrlToStore, putBufferToStore, storeError, type CopyLimits } from '../storage/copy-to-store.js';
import type { ImageGeneration } from '../upstreams/ark/images.js';
import { isModerationCode } from '../upstreams/ark/images.js';
import { arkImageResponseSchema, type ArkImageResponse } from '../upstreams/ark/schema.js';
import { UpstreamError } from '../upstreams/upstream-error.js';
import type { WorkerMetrics } from '../metrics.js';
import type { CallSlots } from '../upstreams/call-slots.js';
import { cancelled } from '../job-errors.js';
import { buildArkRequest } from './ark-request.js';

export interface ImageJobDeps {
  catalog: Catalog;
  billing: Billing;
  metrics: WorkerMetrics;
  /** Bounds the upstream calls (not the copies) across all workers. */
  slots: CallSlots;
  upstreams: Record<string, ImageGeneration>;
  store: BlobStore;
  copyLimits: CopyLimits;
  log: Logger;
}

type Slot = ArkImageResponse['data'][number];
const isFailed = (slot: Slot): slot is Extract<Slot, { error: unknown }> => 'error' in slot;

/**
 * A generation is paid for: once the upstream answered, its answer is checkpointed in the job's
 * progress, so a retry caused by the copy step re-copies instead of generating again.
 */
function checkpointOf(job: Job): ArkImageResponse | undefined {
  const progress = job.progress as { generated?: unknown } | number;
  if (typeof progress !== 'object' || !progress?.generated) return undefined;
  const parsed = arkImageResponseSchema.safeParse(progress.generated);
  return parsed.success ? parsed.data : undefined;
}

function extensionOf(slot: Extract<Slot, { size: string }>, fallback: string): string {
  const fromUrl = slot.url && /\.(png|jpe?g)(?:\?|$)/i.exec(new URL(slot.url).pathname)?.[1]?.toLowerCase();
  return fromUrl === 'png' ? 'png' : fromUrl ? 'jpeg' : fallback;
}

async function storeSlot(job: Job, index: number, slot: Extract<Slot, { size: string }>, fallbackExt: string, deps: ImageJobDeps): Promise<StoredFile> {
  const extension = extensionOf(slot, fallbackExt);
  const key = storageKeyOf(job.id!, index, extension);
  const contentType = CONTENT_TYPES[extension]!;
  try {
    const bytes = slot.url
      ? await copyUrlToStore(slot.url, deps.store, key, contentType, deps.copyLimits)
      : await putBufferToStore(deps.store, key, Buffer.from(slot.b64_json ?? '', 'base64'), contentType, deps.copyLimits.retry);
    return { index, fileId: fileIdOf(job.id!, index, extension), size: slot.size, bytes, contentType };
  } catch (cause) {
    throw storeError(`image ${index}`, cause);
  }
}

export function createImageProcessor(deps: ImageJobDeps) {
  return async (job: Job): Promise<ImageJobResult> => {
    const { request, meta } = imageJobSchema.parse(job.data);
    const model = ownValue(deps.catalog.imageModels, request.model);
    if (!model) throw new AppError('invalid_request', `model ${request.model} is no longer configured`, { param: 'model', retryable: false });
    const log = deps.log.child({ jobId: job.id, requestId: meta.requestId, model: request.model });

    let generated = checkpointOf(job);
    // written while the copies run: it only matters if this attempt dies before it finishes
    let checkpoint: Promise<void> = Promise.resolve();
    if (!generated) {
      const upstream = ownValue(deps.upstreams, model.upstream);
      if (!upstream) throw new AppError('internal', `no adapter for upstream ${model.upstream}`, { retryable: false });
      const body = await buildArkRequest(request, model, deps.store);
      generated = await deps.slots.run(async () => {
        // the last moment a job can be cancelled for free: its client may have left while it waited
        if (!(await deps.billing.begin(job.id!))) throw cancelled();
        return upstream.generate(body);
      });
      checkpoint = job.updateProgress({ generated });
      log.info({ slots: generated.data.length }, 'upstream generated');
    }

    const failed = generated.data.flatMap((slot, index) => (isFailed(slot) ? [{ index, ...slot.error }] : []));
    const delivered = generated.data.flatMap((slot, index) => (isFailed(slot) ? [] : [{ index, slot }]));
    if (delivered.length === 0) {
      const first = failed[0];
      // Nothing delivered: a refusal is final; anything else (an internal stop) is worth a retry.
      if (first && isModerationCode(first.code)) throw new UpstreamError('refused', first.message, { status: 400, code: first.code, moderation: true });
      await checkpoint;
      await job.updateProgress({});
      throw new UpstreamError('transient', first ? `no image delivered: ${first.code}` : 'no image delivered');
    }

    const fallbackExt = request.output_format === 'png' ? 'png' : 'jpeg';
    const [images] = await Promise.all([Promise.all(delivered.map(({ index, slot }) => storeSlot(job, index, slot, fallbackExt, deps))), checkpoint]);
    const outputTokens = images.reduce((sum, image) => {
      const [w = 0, h = 0] = image.size.split('x').map(Number);
      return sum + Math.round((w * h) / 256);
    }, 0);
    // charged for what was delivered and stored, never for what was asked
    const { charged, applied } = await deps.billing.settle(meta.accountId, job.id!, imageCost(model, images.length), `${images.length} images`);
    if (applied) deps.metrics.charged.inc({ model: request.model }, charged);
    deps.metrics.bytesStored.inc({ queue: 'images' }, images.reduce((sum, image) => sum + image.bytes, 0));
    log.info({ delivered: images.length, failed: failed.length, charged }, 'images stored');
    return {
      created: generated.created,
      upstreamModel: generated.model,
      images,
      failed,
      usage: { generated_images: images.length, output_tokens: outputTokens, total_tokens: outputTokens },
    };
  };
}
