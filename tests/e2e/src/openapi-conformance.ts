import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const REF = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;

/** The components a schema names, directly or through other components. */
export function componentsReached(document: OpenApiDocument, schema: unknown, into = new Set<string>()): Set<string> {
  for (const [, name] of JSON.stringify(schema ?? null).matchAll(REF)) {
    if (into.has(name!)) continue;
    into.add(name!);
    componentsReached(document, document.components.schemas[name!], into);
  }
  return into;
}

/** The media types a response documents, `image/*` standing for any image type. */
const documents = (content: Record<string, unknown>, type: string) =>
  Object.hasOwn(content, type) || Object.hasOwn(content, `${type.split('/')[0]}/*`);

/**
 * Holds real exchanges to the document: a body sent is one its request schema accepts, the
 * answer's status and media type are documented, a JSON answer matches its schema (JSON Schema
 * 2020-12, OpenAPI 3.1's dialect). Records every component the checks went through.
 */
export function conformance(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  // a form's fields are text on the wire: read as the schema types them (OpenAPI's multipart encoding), a lone value as a list
  const formAjv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, coerceTypes: 'array' });
  for (const each of [ajv, formAjv]) each.addSchema({ $id: 'relay:openapi', components: document.components });
  const compiled = new Map<unknown, ValidateFunction>();
  const reached = new Set<string>();
  const validate = (where: string, schema: unknown, value: unknown, form = false) => {
    componentsReached(document, schema, reached);
    let check = form ? undefined : compiled.get(schema);
    if (!check) {
      check = (form ? formAjv : ajv).compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"relay:openapi#/components/')),
      );
      if (!form) compiled.set(schema, check);
    }
    expect(check(value) ? [] : check.errors, where).toEqual([]);
  };

  return {
    reached,
    /**
     * Checks one exchange against `METHOD template`; the answer's body, parsed when JSON. A body
     * sent as a form is given as its fields (files as their names), checked against the multipart schema.
     */
    async check(res: Response, method: string, template: string, sent?: unknown, as: 'json' | 'form' = 'json'): Promise<any> {
      const where = `${method} ${template} -> ${res.status}`;
      const operation = document.paths[template]?.[method.toLowerCase()];
      expect(operation, `${method} ${template} is documented`).toBeDefined();
      const sentType = as === 'json' ? 'application/json' : 'multipart/form-data';
      if (sent !== undefined) validate(`${where}: the ${as} sent`, operation.requestBody.content[sentType].schema, sent, as === 'form');
      const answer = operation.responses[String(res.status)];
      expect(answer, `${where} is documented`).toBeDefined();
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
      if (!answer.content) return undefined;
      expect(documents(answer.content, type), `${where} documents ${type}`).toBe(true);
      if (type !== 'application/json') return res.text();
      const body: unknown = await res.json();
      validate(where, answer.content[type].schema, body);
      return body;
    },
  };
}
