import { z } from 'zod';
import type { ZodOpenApiContentObject, ZodOpenApiRequestBodyObject, ZodOpenApiResponseObject } from 'zod-openapi';

/**
 * Pieces the routers' OpenAPI is made of. Schemas are the zod objects the routes parse and answer
 * with: zod-openapi renders them, and one that carries `.meta({ id })` becomes a `$ref`.
 */
export const jsonContent = (schema: z.ZodType): ZodOpenApiContentObject => ({ 'application/json': { schema } });
export const jsonRequest = (schema: z.ZodType): ZodOpenApiRequestBodyObject => ({ required: true, content: jsonContent(schema) });
export const jsonAnswer = (description: string, schema: z.ZodType): ZodOpenApiResponseObject => ({
  description,
  content: jsonContent(schema),
});

/** A body that is a file or a page, not JSON. */
export const textAnswer = (description: string, mediaType: string): ZodOpenApiResponseObject => ({
  description,
  content: { [mediaType]: { schema: z.string() } },
});
export const binaryAnswer = (description: string, ...mediaTypes: string[]): ZodOpenApiResponseObject => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }])),
});

type Security = Array<Record<string, string[]>>;
export const ADMIN_SECURITY: Security = [{ adminToken: [] }];
/** A relay key sent either way: OpenAI's Bearer, or Google's header or query parameter. */
export const ANY_KEY_SECURITY: Security = [{ relayKey: [] }, { googApiKey: [] }, { queryKey: [] }];
