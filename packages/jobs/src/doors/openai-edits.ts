import { AppError, ownValue, parseOrThrow, type Catalog } from '@relay/core';
import { z } from 'zod';
import { imageHold } from '../admission.js';
import { completionEvents, partialImageEvent } from '../answers/image-events.js';
import { imagesResponseSchema } from '../answers/openai.js';
import { presentImages } from '../answers/present-images.js';
import { editAsImageRequest, formBody, maskRefused, openAIEditFields, type ImageForm } from '../images/edit-request.js';
import { maxImageEntryChars } from '../images/input-image.js';
import { imageJobResultSchema, storedFileSchema, type ImageJob, type InputImageRef } from '../images/job.js';
import { imageRequestSchema, type ImageRequest } from '../images/request.js';
import { checkInputImages, stageInputImages, type CheckedInput } from '../images/stage-inputs.js';
import { IMAGES } from './capabilities.js';
import { batchAt, type Door } from './door.js';
import { callHeaders, CALL_ERRORS, errorResponses, pendingResponse, SECURITY } from './openapi.js';

const PATH = '/v1/images/edits';

/** An edit: the images API's request, with its images either as JSON entries or already uploaded as files. */
export interface EditCall {
  request: ImageRequest;
  uploaded?: InputImageRef[];
  /** What Idempotency-Key compares: the fields, and the files by their hashes. */
  asked: unknown;
}

/**
 * OpenAI's POST /v1/images/edits onto image generation: the same job, models and per-model rules
 * as `image` on generations (the edit model takes one image; 4.x/5.0 up to 14 references, and
 * references + images asked at most 15). Multipart as the openai SDK, OpenWebUI and curl send it
 * (files streamed into the store by the api before this door sees them), or JSON with
 * `images[].image_url`. The vendor has no masks: `mask` is a 400 that says so.
 */
export function openAIEditsDoor(catalog: Catalog): Door<'images', EditCall, { call: EditCall; inputs: CheckedInput[] }> {
  const model = (request: ImageRequest) => ownValue(catalog.imageModels, request.model)!;
  const documented = openAIEditFields.extend({ model: z.enum(Object.keys(catalog.imageModels) as [string, ...string[]]) });
  // made once: zod compiles a new schema on its first parse, which cost more than the parse
  const jsonSchema = imageRequestSchema(catalog.imageModels);
  // the form's the same way, one per number of files (the form parser lets at most MAX_INPUT_IMAGES + 1 through)
  const formFields = openAIEditFields.omit({ images: true, image: true });
  const formSchemas = new Map<number, ReturnType<typeof imageRequestSchema>>();
  const formSchema = (files: number) => {
    let schema = formSchemas.get(files);
    if (!schema) formSchemas.set(files, (schema = imageRequestSchema(catalog.imageModels, files)));
    return schema;
  };
  return {
    name: 'openai.images.edits',
    capability: IMAGES,
    dialect: 'openai',
    http: {
      paths: [PATH],
      credentials: 'openai',
      maxStringBytes: ({ inputImageMaxBytes }) => maxImageEntryChars(inputImageMaxBytes),
      form: true,
    },
    batch: batchAt(PATH),
    parse(sent) {
      if (sent.form) return parseForm(sent.form);
      const request = parseOrThrow(jsonSchema, editAsImageRequest(parseOrThrow(openAIEditFields, sent.body)));
      if (request.image === undefined)
        throw new AppError('invalid_request', 'an edit needs images: images[].image_url (or multipart image files)', { param: 'images' });
      return { request, asked: request };
    },
    lineRule(call) {
      if (call.request.response_format === 'b64_json') {
        throw new AppError('invalid_request', 'response_format "b64_json" is not available in a batch: output lines carry links', {
          param: 'response_format',
        });
      }
    },
    hold: (call) => imageHold(model(call.request), call.request, call.uploaded?.length),
    fingerprint: (call) => call.asked,
    inspect: async (call, inputs) => ({ call, inputs: call.uploaded ? [] : await checkInputImages(call.request.image, inputs) }),
    prepare: async ({ call, inputs }, jobId, meta, store): Promise<ImageJob> => ({
      meta,
      request: { ...call.request, image: call.uploaded ?? (await stageInputImages(store, jobId, inputs)) },
    }),
    stream: {
      wanted: (call) => call.request.stream === true,
      async part(call, part, { publicBase, store }) {
        const file = storedFileSchema.parse(part);
        return {
          index: file.index,
          event: await partialImageEvent(file, {
            prefix: 'image_edit',
            responseFormat: call.request.response_format,
            background: call.request.background,
            publicBase,
            store,
          }),
        };
      },
    },
    async present(data, raw, { publicBase, store, call, streamed }) {
      const result = imageJobResultSchema.parse(raw);
      if (call?.request.stream) {
        const ctx = {
          prefix: 'image_edit' as const,
          responseFormat: call.request.response_format,
          background: call.request.background,
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
          summary: 'Edit images (OpenAI dialect)',
          description:
            'The images as multipart files (image, image[] or repeated image) with the other fields as form fields, or JSON with images[].image_url. Same models and per-model rules as image on generations; no mask.',
          security: SECURITY.openai,
          requestParams: { header: callHeaders },
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: documented
                  .omit({ images: true, mask: true, image: true })
                  .extend({ image: z.array(z.string().meta({ format: 'binary' })) }),
              },
              'application/json': { schema: documented.omit({ mask: true }) },
            },
          },
          responses: {
            '200': {
              description: 'The edited images (or image_edit.* events with stream)',
              content: { 'application/json': { schema: imagesResponseSchema } },
            },
            '202': pendingResponse,
            ...errorResponses('openai', CALL_ERRORS),
          },
        },
      },
    }),
  };

  function parseForm(form: ImageForm): EditCall {
    if (form.files.length === 0)
      throw new AppError('invalid_request', 'an edit needs at least one image file (image or image[])', { param: 'image' });
    const body = formBody(form.fields);
    if ('image' in body || 'images' in body) {
      throw new AppError('invalid_request', 'send the images as files, or the whole edit as JSON with images[].image_url, not both', {
        param: 'image',
      });
    }
    const fields = parseOrThrow(formFields, body);
    if (fields.mask !== undefined) throw maskRefused();
    const { mask: _mask, ...rest } = fields;
    const request = parseOrThrow(formSchema(form.files.length), rest);
    const uploaded = form.files.map((file): InputImageRef => ({ kind: 'stored', key: file.key, mime: file.mime }));
    return { request, uploaded, asked: { ...rest, files: form.files.map((file) => file.sha256) } };
  }
}
