import type { CallObserver } from '../../metrics.js';
import type { ImageAdapter, ImageSet, ImageSetEvent, ImageSlot } from '../images.js';
import type { UpstreamTarget } from '../post-json.js';
import { UpstreamError } from '../upstream-error.js';
import { isModerationCode } from './errors.js';
import { createArkImages } from './images.js';
import { arkRequestOf } from './request.js';
import type { ArkImageResponse } from './schema.js';
import { endsSet, type ArkStreamEvent } from './stream-events.js';

/** What Ark said of the tools it ran for a set (5.0 lite's web search): kept with the job, or nothing. */
export const toolsOf = (tools: unknown[] | undefined, usage: Record<string, unknown> | undefined) =>
  tools || usage ? { ...(tools ? { tools } : {}), ...(usage ? { tool_usage: usage } : {}) } : undefined;

type ArkSlot = ArkImageResponse['data'][number];

/** Ark's slot as the neutral image: a layer's description (Ark keeps it beside the link) under `layer`. */
export function neutralSlot(slot: ArkSlot): ImageSlot {
  if ('error' in slot) return slot;
  const { z_index, bounding_box, name, description, ...image } = slot;
  if (z_index === undefined) return image;
  const box = bounding_box && Object.fromEntries(Object.entries(bounding_box).filter(([, v]) => v !== undefined));
  const layer = {
    z_index,
    ...(box ? { bounding_box: box } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
  };
  return { ...image, layer };
}

/** The searches Ark counted (`usage.tool_usage.web_search`); a count it did not give, or gave wrong, is none. */
export function webSearchesOf(usage: Record<string, unknown> | undefined): number | undefined {
  const count = usage?.web_search;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

const searched = (usage: Record<string, unknown> | undefined) => {
  const count = webSearchesOf(usage);
  return count === undefined ? {} : { webSearches: count };
};

/** An answer with no image is the vendor's refusal when its first failure is a moderation code, else worth another call. */
export function deliveredOrThrow(answer: ImageSet): ImageSet {
  if (answer.data.some((slot) => !('error' in slot))) return answer;
  const first = answer.data.find((slot) => 'error' in slot)?.error;
  if (first && isModerationCode(first.code))
    throw new UpstreamError('refused', first.message, { status: 200, code: first.code, moderation: true });
  throw new UpstreamError('transient', first ? `no image delivered: ${first.code}` : 'no image delivered');
}

function neutral(event: ArkStreamEvent): ImageSetEvent {
  const stamp = { model: event.model, created: event.created };
  switch (event.type) {
    case 'image_generation.partial_succeeded':
      return { kind: 'image', index: event.image_index, image: { url: event.url, b64_json: event.b64_json, size: event.size }, ...stamp };
    case 'image_generation.partial_failed':
      return {
        kind: 'failed',
        index: event.image_index,
        error: event.error,
        moderation: isModerationCode(event.error.code),
        endsSet: endsSet(event),
      };
    case 'image_generation.completed':
      return { kind: 'done', ...stamp, tools: toolsOf(event.tools, event.usage?.tool_usage), ...searched(event.usage?.tool_usage) };
  }
}

/** The image capability on Ark's images API: Ark's body and answers, as the neutral call and set. */
export function arkImageAdapter(upstream: UpstreamTarget, observe?: CallObserver): ImageAdapter {
  const ark = createArkImages(upstream, observe);
  return {
    async generate(call) {
      const { usage, tools, data, ...answer } = await ark.generate(arkRequestOf(call));
      const ran = toolsOf(tools, usage?.tool_usage);
      return deliveredOrThrow({ ...answer, data: data.map(neutralSlot), ...(ran ? { tools: ran } : {}), ...searched(usage?.tool_usage) });
    },
    async *generateStream(call, options) {
      for await (const event of ark.generateStream(arkRequestOf(call), options)) yield neutral(event);
    },
  };
}
