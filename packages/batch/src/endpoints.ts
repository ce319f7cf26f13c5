import { AppError, ownValue, parseOrThrow, type BlobStore, type Catalog, type UrlPolicy } from '@relay/core';
import {
  checkInputImages,
  imageHold,
  imageJobResultSchema,
  imageRequestSchema,
  presentImages,
  queuedSpeechRequest,
  speechHold,
  speechJobResultSchema,
  speechRequestSchema,
  stageInputImages,
  type Dialect,
  type Hold,
  type ImageJob,
  type ImageRequest,
  type JobKind,
  type JobMeta,
  type QueueName,
  type SpeechJob,
} from '@relay/jobs';

/** Where inline images of a line are checked and staged, as for a synchronous call. */
export interface InputSettings {
  store: BlobStore;
  maxBytes: number;
  urls: UrlPolicy;
}

/**
 * One endpoint a batch may name, and what its lines go through: the rules of the synchronous
 * call (the same schema, so a line that breaks one gets the same 400), the same hold, the same
 * job payload, and the same answer body (links, never blobs: output files carry no base64).
 */
export interface BatchEndpoint {
  /** As the batch names it; every line's url must be exactly this. */
  path: string;
  queue: QueueName;
  kind: JobKind;
  jobName: string;
  dialect: Dialect;
  /** The validated request and its hold; throws the synchronous call's 400. */
  check(body: unknown): { request: unknown; hold: Hold };
  /** The job's payload, inputs checked and staged (throws a 400 for a refused input image). */
  prepare(jobId: string, request: unknown, meta: JobMeta, inputs: InputSettings): Promise<ImageJob | SpeechJob>;
  /** The body a finished line's output carries. */
  present(data: unknown, result: unknown, linkBase: string): Promise<unknown>;
}

const SPEECH_PATH = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):generateContent$/;

function imagesEndpoint(catalog: Catalog): BatchEndpoint {
  const schema = imageRequestSchema(catalog.imageModels);
  return {
    path: '/v1/images/generations',
    queue: 'images',
    kind: 'img',
    jobName: 'generate',
    dialect: 'openai',
    check(body) {
      const request = parseOrThrow(schema, body);
      if (request.response_format === 'b64_json') {
        throw new AppError(
          'invalid_request',
          'response_format "b64_json" is not available in a batch: output lines carry links to the stored images (or fetch the archive)',
          { param: 'response_format' },
        );
      }
      return { request, hold: imageHold(ownValue(catalog.imageModels, request.model)!, request) };
    },
    async prepare(jobId, raw, meta, inputs) {
      const request = raw as ImageRequest;
      const checked = await checkInputImages(request.image, inputs);
      return { meta, request: { ...request, image: await stageInputImages(inputs.store, jobId, checked) } };
    },
    present: (data, result, linkBase) => presentImages(imageJobResultSchema.parse(result), (data as ImageJob).request, linkBase),
  };
}

function speechEndpoint(catalog: Catalog, path: string, modelId: string): BatchEndpoint {
  const model = ownValue(catalog.speechModels, modelId)!;
  const schema = speechRequestSchema(modelId, model);
  return {
    path,
    queue: 'speech',
    kind: 'tts',
    jobName: 'synthesize',
    dialect: 'google',
    check(body) {
      const request = queuedSpeechRequest(parseOrThrow(schema, body));
      return { request, hold: speechHold(modelId, model, request) };
    },
    prepare: async (_jobId, request, meta) => ({ meta, model: modelId, request: request as SpeechJob['request'] }),
    async present(_data, raw, linkBase) {
      // Gemini's own answer, with the audio as a link (a fileData part) instead of inline PCM
      const result = speechJobResultSchema.parse(raw);
      return {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ fileData: { mimeType: result.file.contentType, fileUri: `${linkBase}/files/${result.file.fileId}` } }],
            },
            finishReason: result.finishReason,
            index: 0,
          },
        ],
        usageMetadata: result.usageMetadata,
        modelVersion: modelId,
        responseId: result.responseId,
      };
    },
  };
}

/** The endpoint a batch names, or a 400 saying which ones exist. */
export function batchEndpoint(catalog: Catalog, path: string): BatchEndpoint {
  if (path === '/v1/images/generations') return imagesEndpoint(catalog);
  const speech = SPEECH_PATH.exec(path);
  if (speech && ownValue(catalog.speechModels, speech[2]!)) return speechEndpoint(catalog, path, speech[2]!);
  const speechPaths = Object.keys(catalog.speechModels).map((m) => `/v1beta/models/${m}:generateContent`);
  throw new AppError(
    'invalid_request',
    `endpoint must be /v1/images/generations or a speech model's ${speechPaths.join(', ')} (v1 and v1alpha too)`,
    { param: 'endpoint' },
  );
}
