import type { Request } from 'express';
import leven from 'leven';
import { AppError } from '@relay/core';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Route {
  method: string;
  template: string;
  segments: string[];
}

/** The routes an OpenAPI document lists, as `METHOD /path/{param}`. */
export function routesOf(document: { paths?: Record<string, object> }): Route[] {
  return Object.entries(document.paths ?? {}).flatMap(([template, operations]) =>
    METHODS.filter((m) => Object.hasOwn(operations, m)).map((m) => ({ method: m.toUpperCase(), template, segments: template.split('/') })),
  );
}

/**
 * How far a request is from a route: the edit distance of its path to the route's, the route's
 * parameters filled with the request's own segments (an id is no typo), one more for another method.
 */
function distance(route: Route, method: string, path: string): number {
  const segments = path.split('/');
  const filled =
    segments.length === route.segments.length
      ? route.segments.map((s, i) => s.replace(/\{[^}]+\}/, segments[i]!.split(':')[0]!)).join('/')
      : route.template;
  return leven(path, filled) + (route.method === method ? 0 : 1);
}

/**
 * The relay's answer to a path no route serves: the nearest route when one is close enough to
 * be a typo (`/v1/images/generate`, GET on a POST route), and where every route is listed.
 */
export function noRoute(routes: Route[]) {
  return (req: Request) => {
    const asked = `${req.method} ${req.path}`;
    let best: Route | undefined;
    let bestDistance = Infinity;
    for (const route of routes) {
      const d = distance(route, req.method, req.path);
      if (d < bestDistance) [best, bestDistance] = [route, d];
    }
    const near = best && bestDistance <= Math.max(3, Math.floor(req.path.length / 4));
    throw new AppError(
      'not_found',
      near
        ? `no such route: ${asked}; did you mean ${best!.method} ${best!.template}? Every route is listed at /docs`
        : `no such route: ${asked}; every route is listed at /docs`,
    );
  };
}
