import type { CallGate } from '@relay/channels';
import type { JobLife } from '@relay/life';
import { unlessStopped } from '../stopping.js';
import { z } from 'zod';
import { storedFileSchema, type RelayJob, type StoredFile } from '@relay/jobs';
import { AppError } from '@relay/core';
import type { DeliveredImage, ImageCall } from '../upstreams/images.js';
import { StreamInterrupted } from '../upstreams/stream-interrupted.js';
import { UpstreamError } from '../upstreams/upstream-error.js';
import type { UpstreamCalls } from '../channels/upstream-calls.js';
import { isNotAnImage, NOT_AN_IMAGE } from '../storage/image-slots.js';

const failedSlot = z.object({ index: z.number().int(), code: z.string(), message: z.string() });

/** What a streamed set delivered so far: checkpointed in the job as each image is stored. */
const streamedSchema = z.object({
  images: z.array(storedFileSchema),
  failed: z.array(failedSlot),
  created: z.number().int(),
  upstreamModel: z.string(),
  channel: z.string(),
  /** The vendor said the set is over (completed); otherwise the stream broke after these images. */
  ended: z.boolean(),
  /** Tools the vendor ran for the set, as its end said them. */
  tools: z.unknown().optional(),
  /** The web searches the vendor counted for the call. */
  webSearches: z.number().int().min(0).optional(),
});
export type Streamed = z.output<typeof streamedSchema>;

const checkpointOf = (job: RelayJob<'images'>) => z.object({ streamed: streamedSchema }).safeParse(job.progress);

export interface StreamSetDeps {
  upstream: UpstreamCalls;
  /** Whether its owner stopped the job (read while every channel cools). */
  life: Pick<JobLife, 'stopping'>;
  /** The last moment the job may be cancelled for free (its client may have left while it waited): asked with each pick. */
  begin: CallGate;
  /** Keeps the set so far in the job; `last`: the set is over (its upstream call too). */
  checkpoint: (set: Streamed, last: boolean) => Promise<void>;
  /** Copies one delivered image into the store. */
  store: (index: number, image: DeliveredImage) => Promise<StoredFile>;
  /** Tells the waiting caller an image is ready (it is stored and checkpointed already). */
  delivered: (file: StoredFile) => Promise<void>;
}

/**
 * A sequential set asked with `stream: true`, on a model the vendor streams: each image is stored
 * the moment its event arrives, checkpointed in the job and announced to the caller. Once an
 * image arrived the set is the caller's: a stream that breaks afterwards ends the set with what
 * came (never a second call, which would pay for the set again), and a retry after a crash
 * finishes from the checkpoint. A failure before any image is thrown as usual (retry, failover).
 */
export async function streamSet(job: RelayJob<'images'>, call: Omit<ImageCall, 'vendorModel'>, deps: StreamSetDeps): Promise<Streamed> {
  const saved = checkpointOf(job);
  if (saved.success && (saved.data.streamed.ended || saved.data.streamed.images.length > 0)) return broken(saved.data.streamed);

  const { value, channel } = await unlessStopped(job, deps.life, () =>
    deps.upstream.call(
      'images',
      call.request.model,
      async (upstream, vendorModel) => {
        const set: Streamed = {
          images: [],
          failed: [],
          created: Math.floor(Date.now() / 1000),
          upstreamModel: vendorModel,
          channel: '',
          ended: false,
        };
        let refusal: UpstreamError | undefined;
        try {
          for await (const event of upstream.generateStream({ ...call, vendorModel })) {
            if (event.created !== undefined) set.created = event.created;
            if (event.model !== undefined) set.upstreamModel = event.model;
            if (event.kind === 'image') {
              const file = await deps.store(event.index, event.image).catch((error: unknown) => {
                // bytes that are no image were not delivered: a failed slot, not charged; the set goes on
                if (!isNotAnImage(error)) throw error;
                set.failed.push({ index: event.index, code: NOT_AN_IMAGE, message: error.message });
                return undefined;
              });
              if (!file) continue;
              set.images.push(file);
              await deps.checkpoint(set, false);
              await deps.delivered(file);
            } else if (event.kind === 'failed') {
              set.failed.push({ index: event.index, ...event.error });
              if (event.moderation)
                refusal ??= new UpstreamError('refused', event.error.message, { status: 400, code: event.error.code, moderation: true });
              if (event.endsSet) break;
            } else {
              set.ended = true;
              if (event.tools !== undefined) set.tools = event.tools;
              if (event.webSearches !== undefined) set.webSearches = event.webSearches;
            }
          }
        } catch (error) {
          if (!(error instanceof StreamInterrupted) || set.images.length === 0) throw error;
          set.failed.push({ index: nextIndex(set), code: 'upstream_failed', message: error.message });
        }
        if (set.images.length === 0) throw nothingDelivered(set, refusal);
        set.ended = true;
        await deps.checkpoint(set, true);
        return set;
      },
      deps.begin,
    ),
  );
  return { ...value, channel };
}

/**
 * A set that ended with no image: the vendor's refusal of the content is the answer, as for a
 * single call; bytes that were no image are final (asking again would buy them again); anything
 * else delivered nothing and is worth another call.
 */
function nothingDelivered(set: Streamed, refusal: UpstreamError | undefined): Error {
  const first = set.failed[0];
  if (first && set.failed.every((slot) => slot.code === NOT_AN_IMAGE)) {
    return new AppError('upstream_failed', `the upstream delivered no image: ${first.message}`, { retryable: false });
  }
  return refusal ?? new UpstreamError('transient', first ? `no image delivered: ${first.code}` : 'no image delivered');
}

const nextIndex = (set: Pick<Streamed, 'images' | 'failed'>) =>
  Math.max(-1, ...set.images.map((i) => i.index), ...set.failed.map((f) => f.index)) + 1;

/** A set whose worker died mid-stream: what it stored is delivered, the rest named as failed. */
function broken(set: Streamed): Streamed {
  if (set.ended) return set;
  const message = `the stream stopped after ${set.images.length} images (the worker was interrupted); they are kept`;
  return { ...set, ended: true, failed: [...set.failed, { index: nextIndex(set), code: 'upstream_failed', message }] };
}
