import { AppError, ownValue, parseOrThrow, type Catalog } from '@relay/core';
import { z } from 'zod';
import { imageHold } from '../admission.js';
import { imagesResponseSchema } from '../answers/openai.js';
import { presentImages } from '../answers/present-images.js';
import { maxImageEntryChars } from '../images/input-image.js';
import { imageJobResultSchema, storedFileSchema, type ImageJob } from '../images/job.js';
import { completionEvents, partialImageEvent } from '../answers/image-events.js';
import { imageRequestFields, imageRequestSchema, type ImageRequest } from '../images/request.js';
import { checkInputImages, stageInputImages, type CheckedInput } from '../images/stage-inputs.js';
import { IMAGES } from './capabilities.js';
import { batchAt, type Door } from './door.js';
import { callHeaders, CALL_ERRORS, errorResponses, pendingResponse, SECURITY } from './openapi.js';

const PATH = '/v1/images/generations';

/** One line of the per-model rules, for the operation's description. */
function rulesOf(catalog: Catalog) {
  return Object.entries(catalog.imageModels)
    .map(([id, m]) => {
      const inputs = m.inputImages.max === 0 ? 'no input image' : `${m.inputImages.min}-${m.inputImages.max} input images`;
      const extras = [m.seed && 'seed', m.guidanceScale !== null && 'guidance_scale', m.sequential && 'sequential generation'];
      const output = [m.outputFormat && `output_format (default ${m.defaultOutputFormat})`, m.background && 'background transparent'];
      return [id, inputs, ...extras, ...output].filter(Boolean).join(', ');
    })
    .join('; ');
}

/**
 * OpenAI's images API (POST /v1/images/generations) with the SPEC's body: the door the SPEC
 * names, the openai SDK, the AI SDK and LangChain use.
 */
export function openAIImagesDoor(catalog: Catalog): Door<'images', ImageRequest, { request: ImageRequest; inputs: CheckedInput[] }> {
  const schema = imageRequestSchema(catalog.imageModels);
  const documented = imageRequestFields.extend({ model: z.enum(Object.keys(catalog.imageModels) as [string, ...string[]]) });
  return {
    name: 'openai.images.generations',
    capability: IMAGES,
    dialect: 'openai',
    http: {
      paths: [PATH],
      credentials: 'openai',
      maxStringBytes: ({ inputImageMaxBytes }) => maxImageEntryChars(inputImageMaxBytes),
    },
    batch: batchAt(PATH),
    parse: (sent) => parseOrThrow(schema, sent.body),
    lineRule(request) {
      if (request.response_format === 'b64_json') {
        throw new AppError(
          'invalid_request',
          'response_format "b64_json" is not available in a batch: output lines carry links to the stored images (or fetch the archive)',
          { param: 'response_format' },
        );
      }
    },
    hold: (request) => imageHold(ownValue(catalog.imageModels, request.model)!, request),
    fingerprint: (request) => request,
    inspect: async (request, inputs) => ({ request, inputs: await checkInputImages(request.image, inputs) }),
    prepare: async ({ request, inputs }, jobId, meta, store): Promise<ImageJob> => ({
      meta,
      request: { ...request, image: await stageInputImages(store, jobId, inputs) },
    }),
    stream: {
      wanted: (request) => request.stream === true,
      async part(request, part, { publicBase, store }) {
        const file = storedFileSchema.parse(part);
        const event = await partialImageEvent(file, {
          prefix: 'image_generation',
          responseFormat: request.response_format,
          background: request.background,
          publicBase,
          store,
        });
        return { index: file.index, event };
      },
    },
    async present(data, raw, { publicBase, store, call, streamed }) {
      const result = imageJobResultSchema.parse(raw);
      if (call?.stream) {
        const ctx = {
          prefix: 'image_generation' as const,
          responseFormat: call.response_format,
          background: call.background,
          publicBase,
          store,
        };
        return { kind: 'events', events: completionEvents(result, streamed ?? new Set(), ctx) };
      }
      return { kind: 'json', body: await presentImages(result, data.request, publicBase, store) };
    },
    line: (data, result, linkBase) => presentImages(imageJobResultSchema.parse(result), data.request, linkBase),
    openapi: () => ({
      [PATH]: {
        post: {
          tags: ['images'],
          summary: 'Generate images',
          description: `Per-model rules (checked before anything is queued): ${rulesOf(catalog)}.`,
          security: SECURITY.openai,
          requestParams: { header: callHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: documented } } },
          responses: {
            '200': { description: 'The generated images', content: { 'application/json': { schema: imagesResponseSchema } } },
            '202': pendingResponse,
            ...errorResponses('openai', CALL_ERRORS),
          },
        },
      },
    }),
  };
}
