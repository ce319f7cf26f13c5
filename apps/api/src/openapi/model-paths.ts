import { ref, type SchemaName } from './components.js';
import { pageParams } from './gemini-paths.js';

/** One of two bodies, by the dialect the caller's credential chose. */
const either = (description: string, openai: SchemaName, google: SchemaName) => ({
  description,
  content: { 'application/json': { schema: { oneOf: [ref(openai), ref(google)] } } },
});

const DIALECT =
  "OpenAI clients (Authorization: Bearer) get OpenAI's shape; Google clients (x-goog-api-key or ?key=) get Gemini's, as under /v1beta.";

/** GET /v1/models and /v1/models/{model}: OpenAI's model listing and Gemini v1's, told apart by the credential. */
export function modelPaths() {
  return {
    '/v1/models': {
      get: {
        tags: ['models'],
        summary: 'The models a key may use',
        description: `Every catalog model (images and speech) for OpenAI clients; the speech models, paged, for Google clients. ${DIALECT}`,
        security: [{ relayKey: [] }, { googApiKey: [] }, { queryKey: [] }],
        parameters: pageParams,
        responses: {
          '200': either('OpenAI list, or Gemini ListModelsResponse', 'OpenAIModelList', 'GeminiModelList'),
          '400': either('A bad pageSize or pageToken (Gemini callers)', 'OpenAIError', 'GoogleError'),
          '401': either('Missing, wrong or revoked key', 'OpenAIError', 'GoogleError'),
          '429': either('This key is over its rate limit (Retry-After)', 'OpenAIError', 'GoogleError'),
        },
      },
    },
    '/v1/models/{model}': {
      get: {
        tags: ['models'],
        summary: 'One model',
        description: DIALECT,
        security: [{ relayKey: [] }, { googApiKey: [] }, { queryKey: [] }],
        parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': either('OpenAI Model, or Gemini Model', 'OpenAIModel', 'GeminiModel'),
          '401': either('Missing, wrong or revoked key', 'OpenAIError', 'GoogleError'),
          '404': either('No such model (for Gemini callers: no such speech model)', 'OpenAIError', 'GoogleError'),
          '429': either('This key is over its rate limit (Retry-After)', 'OpenAIError', 'GoogleError'),
        },
      },
    },
  };
}
