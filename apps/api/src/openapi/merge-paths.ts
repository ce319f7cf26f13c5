import type { ZodOpenApiPathsObject } from 'zod-openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The routers' path objects as one: two routers may serve one path (by method), never one operation. */
export function mergePaths(all: ZodOpenApiPathsObject[]): ZodOpenApiPathsObject {
  const merged: ZodOpenApiPathsObject = {};
  for (const paths of all) {
    for (const path of Object.keys(paths)) {
      const [before, item] = [merged[path], paths[path]];
      const twice = before && item && METHODS.find((m) => before[m] && item[m]);
      if (twice) throw new Error(`${twice.toUpperCase()} ${path} is described twice`);
      merged[path] = { ...before, ...item };
    }
  }
  return merged;
}
