import type { OpenApiDocument } from './document.js';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Operation = {
  summary?: string;
  description?: string;
  parameters?: Array<{ name?: string; in?: string; $ref?: string; description?: string }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};

const schemaLink = (schema?: { $ref?: string }) => {
  const name = schema?.$ref?.split('/').pop();
  return name ? `<a href="#schema-${name}">${name}</a>` : '';
};

/** A self-contained HTML rendering of the OpenAPI document (no CDN: it works offline too). */
export function renderDocsPage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'patch', 'delete'].includes(method))
      .map(([method, op]) => {
        const o = op as Operation;
        const params = (o.parameters ?? []).map((p) => escape(p.name ?? p.$ref?.split('/').pop() ?? '')).join(', ');
        const body = o.requestBody ? Object.values(o.requestBody.content).map((c) => schemaLink(c.schema)).join(' ') : '';
        const responses = Object.entries(o.responses)
          .map(([status, r]) => `<li><b>${status}</b> ${escape(r.description)} ${Object.values(r.content ?? {}).map((c) => schemaLink(c.schema)).join(' ')}</li>`)
          .join('');
        return `<section><h3><span class="m">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(o.summary ?? '')}</p>${o.description ? `<p class="d">${escape(o.description)}</p>` : ''}
${params ? `<p>Parameters: ${params}</p>` : ''}${body ? `<p>Body: ${body}</p>` : ''}<ul>${responses}</ul></section>`;
      }),
  );
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => `<section id="schema-${name}"><h3>${name}</h3><pre>${escape(JSON.stringify(schema, null, 2))}</pre></section>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)} API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}section{border-top:1px solid #ddd;padding:.5em 0}
.m{background:#234;color:#fff;border-radius:4px;padding:0 .4em;font-size:.8em}.d{color:#555}pre{background:#f6f8fa;padding:1em;overflow:auto;font-size:12px}</style>
</head><body><h1>${escape(doc.info.title)} ${escape(doc.info.version)}</h1><p>${escape(doc.info.description)} The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
<h2>Operations</h2>${operations.join('')}<h2>Schemas</h2>${schemas}</body></html>`;
}
