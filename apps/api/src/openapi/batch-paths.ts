import { errors, json, ok, pathId } from './parts.js';

const security = [{ relayKey: [] }];
const batchId = pathId('batchId');

/** OpenAI's Batches API over both endpoints, and the relay's results feed and archive. */
export function batchPaths() {
  return {
    '/v1/batches': {
      post: {
        tags: ['batch'],
        summary: 'Create a batch from an uploaded input file',
        description:
          "endpoint is /v1/images/generations or a speech model's /v1beta/models/{model}:generateContent. The input is validated first: format errors fail the batch (status failed, errors.data with line numbers); a line breaking a rule of its endpoint is not run and gets the synchronous 400 in the error file. Then the most the other lines can cost is held (402 if the balance does not cover it).",
        security,
        requestBody: { required: true, content: json('BatchCreate') },
        responses: {
          '200': ok('The batch (in_progress, or failed in validation)', 'Batch'),
          ...errors('OpenAIError', [400, 401, 402, 404, 415, 429, 503]),
        },
      },
      get: {
        tags: ['batch'],
        summary: "The account's batches, newest first",
        security,
        parameters: [
          { name: 'after', in: 'query', schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
        ],
        responses: { '200': ok('A page of batches', 'BatchList'), ...errors('OpenAIError', [400, 401, 429]) },
      },
    },
    '/v1/batches/{batchId}': {
      get: {
        tags: ['batch'],
        summary: 'One batch, with its counts and progress',
        security,
        parameters: [batchId],
        responses: { '200': ok('The batch', 'Batch'), ...errors('OpenAIError', [401, 404, 429]) },
      },
    },
    '/v1/batches/{batchId}/cancel': {
      post: {
        tags: ['batch'],
        summary: 'Cancel a batch: nothing more starts, lines in flight finish and are kept',
        security,
        parameters: [batchId],
        responses: { '200': ok('The batch, cancelling', 'Batch'), ...errors('OpenAIError', [401, 404, 409, 429]) },
      },
    },
    '/v1/batches/{batchId}/results': {
      get: {
        tags: ['batch'],
        summary: 'The lines of a running batch finished so far, in the order they finished (relay extension)',
        security,
        parameters: [
          batchId,
          {
            name: 'after',
            in: 'query',
            schema: { type: 'integer', minimum: 0 },
            description: "How many finished lines were read already (the previous page's after)",
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        ],
        responses: { '200': ok('Output and error lines', 'BatchResults'), ...errors('OpenAIError', [400, 401, 404, 409, 429, 503]) },
      },
    },
    '/v1/batches/{batchId}/archive': {
      get: {
        tags: ['batch'],
        summary: 'A ZIP of every file an ended batch delivered, with manifest.json (relay extension)',
        security,
        parameters: [batchId],
        responses: {
          '200': {
            description: 'files/{custom_id}/{index}.{ext} and manifest.json (custom_id -> path, bytes, sha256, url), streamed',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors('OpenAIError', [401, 404, 409, 429]),
        },
      },
    },
  };
}
