import {
  AppError,
  FRESH_MAX_BYTES,
  inSpan,
  ownValue,
  type BlobStore,
  type Catalog,
  type FreshFile,
  type ImageModel,
  type Logger,
} from '@relay/core';
import { imageCost, webSearchCost } from '@relay/billing';
import type { CallGate } from '@relay/channels';
import type { JobLife } from '@relay/life';
import {
  CONTENT_TYPES,
  conversionOf,
  fileIdOf,
  IMAGES,
  generationsOf,
  imageJobSchema,
  parseFileId,
  storageKeyOf,
  type ImageJob,
  type ImageJobResult,
  type StoredFile,
  type RelayJob,
} from '@relay/jobs';
import { copyUrlToStore, putImageToStore, storeError, type CopyLimits } from '../storage/copy-to-store.js';
import { storeDelivered } from '../storage/image-slots.js';
import { storeConverted } from '../storage/store-converted.js';
import { isFailedSlot, type DeliveredImage, type ImageSlot } from '../upstreams/images.js';
import { UpstreamError } from '../upstreams/upstream-error.js';
import type { WorkerMetrics } from '../metrics.js';
import type { UpstreamCalls } from '../channels/upstream-calls.js';
import { inputImagesOf } from './input-images.js';
import { runGenerations, type Outcome } from './generations.js';
import { streamSet } from './stream-set.js';
import { unlessStopped } from '../stopping.js';

export interface ImageJobDeps {
  catalog: Catalog;
  /** Its begin, checkpoints, calls over (the next job takes its place while this one copies) and charge. */
  life: Pick<JobLife, 'beginning' | 'stopping' | 'checkpoint' | 'callsOver' | 'settle'>;
  metrics: WorkerMetrics;
  /** Upstream calls through the channels serving the model (capacity leases held for the call only, not the copies). */
  upstream: UpstreamCalls;
  store: BlobStore;
  copyLimits: CopyLimits;
  /** Tells the job's waiters one image of a streamed set is stored (@relay/life's notices). */
  partial: (job: RelayJob<'images'>, file: StoredFile, fresh?: FreshFile) => Promise<void>;
  log: Logger;
}

/** Every slot of every generation in order (a refused or given-up generation is one failed slot). */
function slotsOf(outcomes: Outcome[]): ImageSlot[] {
  return outcomes.flatMap((outcome): ImageSlot[] => {
    if ('answer' in outcome) return outcome.answer.data;
    if ('gaveUp' in outcome) return [{ error: outcome.gaveUp }];
    const { code, message, moderation } = outcome.refused;
    return [{ error: { code: code ?? (moderation ? 'content_rejected' : 'upstream_rejected'), message } }];
  });
}

/** How a job's images are stored: as the vendor made them, or converted to the format and compression asked. */
type SlotStore = (index: number, slot: DeliveredImage) => Promise<StoredFile>;

/**
 * What of a set's images is kept in memory for its answer at once, at most: a set of fifteen large
 * images is not held whole while it is made (those past it are read back from the store).
 */
const FRESH_SET_MAX_BYTES = 4 * FRESH_MAX_BYTES;

/**
 * `fresh`: where the stored images' bytes go when the answer carries them (b64_json): published to
 * the waiting api with the charge, or each with its event, instead of read back from the store.
 */
function slotStore(
  job: RelayJob<'images'>,
  request: ImageJob['request'],
  model: ImageModel,
  deps: ImageJobDeps,
  fresh?: FreshFile[],
): SlotStore {
  const conversion = conversionOf(request, model);
  // each copy into the store is a span of the job's trace: a slow store shows as itself
  return (index, slot) => inSpan('relay.store', { 'relay.file.index': index }, () => storeSlot(job, index, slot, conversion, deps, fresh));
}

async function storeSlot(
  job: RelayJob<'images'>,
  index: number,
  slot: DeliveredImage,
  conversion: ReturnType<typeof conversionOf>,
  deps: ImageJobDeps,
  fresh?: FreshFile[],
): Promise<StoredFile> {
  // named and typed by its bytes (JPEG, PNG or WebP): the link's name and the asked format are only the upstream's word
  const target = (format: string) => ({ key: storageKeyOf(job.id!, index, format), contentType: CONTENT_TYPES[format]! });
  const room = fresh ? Math.min(FRESH_MAX_BYTES, FRESH_SET_MAX_BYTES - fresh.reduce((sum, f) => sum + f.bytes.length, 0)) : 0;
  const limits = room > 0 ? { ...deps.copyLimits, keepUpTo: room } : deps.copyLimits;
  try {
    const stored = conversion
      ? await storeConverted(slot, deps.store, target, limits, conversion)
      : slot.url
        ? await copyUrlToStore(slot.url, deps.store, target, limits)
        : await putImageToStore(deps.store, target, Buffer.from(slot.b64_json ?? '', 'base64'), limits.retry);
    if (fresh && stored.kept && stored.kept.length <= room) fresh.push({ ...target(stored.format), bytes: stored.kept });
    const measured = stored.dimensions && `${stored.dimensions.width}x${stored.dimensions.height}`;
    return {
      index,
      fileId: fileIdOf(job.id!, index, stored.format),
      // the vendor's word where it gave one (3.0 and SeedEdit give none): the bytes' own otherwise
      size: slot.size || measured || '',
      bytes: stored.bytes,
      contentType: stored.contentType,
      ...(slot.layer ? { layer: slot.layer } : {}),
    };
  } catch (cause) {
    throw storeError(`image ${index}`, cause);
  }
}

export function createImageProcessor(deps: ImageJobDeps) {
  return async (job: RelayJob<'images'>): Promise<ImageJobResult> => {
    const { request, meta } = imageJobSchema.parse(job.data);
    const model = ownValue(deps.catalog.imageModels, request.model);
    if (!model)
      throw new AppError('invalid_request', `model ${request.model} is no longer configured`, { param: 'model', retryable: false });
    const log = deps.log.child({ jobId: job.id, requestId: meta.requestId, model: request.model });
    // an answer with its images' bytes: they go to the waiting api with the charge, or each with its
    // event when the vendor streams the set (@relay/core's fresh.ts)
    const fresh: FreshFile[] | undefined = request.response_format === 'b64_json' ? [] : undefined;
    /** The bytes of an image sent as its own event: published with it, not again with the charge. */
    const freshOf = (file: StoredFile) => {
      const at = fresh?.findIndex((f) => f.key === parseFileId(file.fileId)?.key) ?? -1;
      return at < 0 ? undefined : fresh!.splice(at, 1)[0];
    };
    const store = slotStore(job, request, model, deps, fresh);
    // the last moment a job can be cancelled for free (its client may have left while it waited),
    // asked with each pick of a channel
    const begin: CallGate = (lease) => deps.life.beginning(job, lease);

    // charged for what was delivered and stored, never for what was asked
    const finish = async (set: {
      images: StoredFile[];
      failed: ImageJobResult['failed'];
      created: number;
      upstreamModel: string;
      channel: string;
      tools?: unknown;
      /** Upstream calls whose answer counted a web search: each pays the model's fee. */
      searchedCalls: number;
    }) => {
      const { images, failed, channel } = set;
      const outputTokens = images.reduce((sum, image) => {
        const [w = 0, h = 0] = image.size.split('x').map(Number);
        return sum + Math.round((w * h) / 256);
      }, 0);
      const { ready, settled } = deps.life.settle(
        job,
        {
          accountId: meta.accountId,
          amount: imageCost(model, images.length) + webSearchCost(model, set.searchedCalls),
          units: set.searchedCalls ? `${images.length} images, ${set.searchedCalls} web searches` : `${images.length} images`,
          channel,
        },
        undefined,
        fresh,
      );
      settled.then(
        ({ charged, applied }) => {
          if (applied) deps.metrics.charged.inc({ model: request.model }, charged);
          log.info({ delivered: images.length, failed: failed.length, charged, channel }, 'images stored');
        },
        () => undefined, // told by `ready`, or where a charge held for the job's end is sent
      );
      deps.metrics.bytesStored.inc(
        { queue: IMAGES.id },
        images.reduce((sum, image) => sum + image.bytes, 0),
      );
      await ready;
      return {
        created: set.created,
        upstreamModel: set.upstreamModel,
        images,
        failed,
        usage: { generated_images: images.length, output_tokens: outputTokens, total_tokens: outputTokens },
        ...(set.tools !== undefined ? { tools: set.tools } : {}),
      };
    };

    if (request.stream && model.stream) {
      // each image stored and sent on the moment it is made (the vendor streams this model)
      const set = await streamSet(
        job,
        { request, model, inputs: await inputImagesOf(request, deps.store) },
        {
          upstream: deps.upstream,
          life: deps.life,
          begin,
          checkpoint: (streamed, last) => deps.life.checkpoint(job, { streamed }, { callsOver: last }),
          store,
          delivered: (file) => deps.partial(job, file, freshOf(file)),
        },
      );
      deps.life.callsOver(job);
      return finish({ ...set, searchedCalls: (set.webSearches ?? 0) > 0 ? 1 : 0 });
    }

    let inputs: Promise<string[]> | undefined;
    const generate = async () => {
      inputs ??= inputImagesOf(request, deps.store);
      const call = { request, model, inputs: await inputs };
      const { value, channel } = await unlessStopped(job, deps.life, () =>
        deps.upstream.call('images', request.model, (upstream, vendorModel) => upstream.generate({ ...call, vendorModel }), begin),
      );
      return { answer: value, channel };
    };
    const outcomes = await runGenerations(job, generationsOf(request), generate, (snapshot, last) =>
      deps.life.checkpoint(job, snapshot, { callsOver: last }),
    );
    deps.life.callsOver(job);
    const answers = outcomes.flatMap((outcome) => ('answer' in outcome ? [outcome.answer] : []));
    const first = answers[0];
    if (!first) {
      // every generation was refused: the first refusal is the answer, as for a single call
      const { refused } = outcomes.find((outcome) => 'refused' in outcome) as Extract<Outcome, { refused: unknown }>;
      throw new UpstreamError('refused', refused.message, {
        status: 400,
        code: refused.code,
        param: refused.param,
        moderation: refused.moderation,
      });
    }
    const slots = slotsOf(outcomes);
    const failed = slots.flatMap((slot, index) => (isFailedSlot(slot) ? [{ index, ...slot.error }] : []));
    const delivered = slots.flatMap((slot, index) => (isFailedSlot(slot) ? [] : [{ index, slot }]));
    log.info({ generations: outcomes.length, slots: slots.length }, 'upstream generated');
    const images = await storeDelivered(delivered, failed, ({ index, slot }) => store(index, slot));
    const channel = [...new Set(outcomes.flatMap((outcome) => ('channel' in outcome && outcome.channel ? [outcome.channel] : [])))].join(
      ',',
    );
    const tools = answers.find((answer) => answer.tools !== undefined)?.tools;
    const searchedCalls = answers.filter((answer) => (answer.webSearches ?? 0) > 0).length;
    return finish({ images, failed, created: first.created, upstreamModel: first.model, channel, tools, searchedCalls });
  };
}
