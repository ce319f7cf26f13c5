import { errors, ok, pathId } from './parts.js';

const security = [{ relayKey: [] }];

/** OpenAI's Files API, for batch inputs (purpose "batch") and the outputs batches write. */
export function batchFilePaths() {
  return {
    '/v1/files': {
      post: {
        tags: ['batch'],
        summary: 'Upload a batch input file (JSONL)',
        description:
          'multipart/form-data with `file` and `purpose=batch`; streamed into the store; at most BATCH_FILE_MAX_BYTES (200 MiB) and BATCH_FILE_MAX_LINES (50,000 lines).',
        security,
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file', 'purpose'],
                properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string', enum: ['batch'] } },
              },
            },
          },
        },
        responses: { '200': ok('The file', 'FileObject'), ...errors('OpenAIError', [400, 401, 413, 415, 429, 503]) },
      },
      get: {
        tags: ['batch'],
        summary: "The account's files, newest first",
        security,
        parameters: [
          { name: 'after', in: 'query', schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10_000 } },
          { name: 'order', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'] } },
          { name: 'purpose', in: 'query', schema: { type: 'string', enum: ['batch', 'batch_output'] } },
        ],
        responses: { '200': ok('A page of files', 'FileList'), ...errors('OpenAIError', [400, 401, 429]) },
      },
    },
    '/v1/files/{fileId}': {
      get: {
        tags: ['batch'],
        summary: 'One file',
        security,
        parameters: [pathId('fileId')],
        responses: { '200': ok('The file', 'FileObject'), ...errors('OpenAIError', [401, 404, 429]) },
      },
      delete: {
        tags: ['batch'],
        summary: 'Delete a file and its content',
        security,
        parameters: [pathId('fileId')],
        responses: { '200': ok('Deleted', 'FileDeleted'), ...errors('OpenAIError', [401, 404, 429, 503]) },
      },
    },
    '/v1/files/{fileId}/content': {
      get: {
        tags: ['batch'],
        summary: "A file's content",
        security,
        parameters: [pathId('fileId')],
        responses: {
          '200': { description: 'The JSONL', content: { 'application/jsonl': { schema: { type: 'string' } } } },
          ...errors('OpenAIError', [401, 404, 429, 503]),
        },
      },
    },
  };
}
