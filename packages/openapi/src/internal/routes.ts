import { HTTP_METHODS, type HTTPMethod, type Route } from '@fw/core';
import type { OpenAPIOptions } from '../types.js';
import type { Warn } from './convert.js';

/** The methods a route registered with `all()` is documented under (HEAD and OPTIONS are left out). */
export const ALL_ROUTE_METHODS: readonly HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** One operation to document. */
export interface PlannedOperation {
  route: Route;
  method: HTTPMethod;
  /** The OpenAPI path (`/users/{id}`), prefix stripped when asked. */
  template: string;
  /** The parameter names the template uses, in path order. */
  templateNames: string[];
  /** The route's own parameter names at the same positions (they differ when two routes name one segment differently). */
  routeNames: string[];
}

/** `/api/v1/` → `/api/v1`; `` and `/` → `` (no prefix). */
export function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return '';
  let p = prefix.trim();
  if (p !== '' && !p.startsWith('/')) p = `/${p}`;
  while (p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** Whether `path` is `prefix` or below it (`/api/v1` covers `/api/v1/books`, not `/api/v10`). */
export function underPrefix(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Chooses what to document, in registration order:
 * - routes with `meta.hidden`, outside `prefix`, or refused by `include` are left out;
 * - a route registered for every method (`all()`) is documented under GET, POST, PUT, PATCH and DELETE;
 * - HEAD registered together with GET is the same operation (core answers HEAD from GET anyway);
 * - a route shadowed by an earlier one with the same method and path shape never runs: left out, with a warning;
 * - `/a/:id` and `/a/:name` are one OpenAPI path: the later route uses the first one's names, with a warning.
 */
export function planOperations(routes: readonly Route[], options: OpenAPIOptions, warn: (code: Parameters<Warn>[0], message: string, method: HTTPMethod, path: string) => void): PlannedOperation[] {
  const prefix = normalizePrefix(options.prefix);
  const strip = prefix !== '' && options.stripPrefix !== false;
  const chosen = routes.filter((route) => route.meta?.hidden !== true && underPrefix(route.path, prefix) && (options.include === undefined || options.include(route)));

  // Records of one registration share their middleware array (core spreads one record per method).
  const registrations = new Map<unknown, Map<string, Set<HTTPMethod>>>();
  for (const route of chosen) {
    let byPath = registrations.get(route.middleware);
    if (byPath === undefined) registrations.set(route.middleware, (byPath = new Map<string, Set<HTTPMethod>>()));
    let methods = byPath.get(route.path);
    if (methods === undefined) byPath.set(route.path, (methods = new Set()));
    methods.add(route.method);
  }

  const shapes = new Map<string, { template: string; names: string[] }>();
  const seen = new Set<string>();
  const planned: PlannedOperation[] = [];
  for (const route of chosen) {
    const methods = registrations.get(route.middleware)!.get(route.path)!;
    const everyMethod = HTTP_METHODS.every((m) => methods.has(m));
    if (everyMethod ? !ALL_ROUTE_METHODS.includes(route.method) : route.method === 'HEAD' && methods.has('GET')) continue;

    const relative = strip ? route.path.slice(prefix.length) || '/' : route.path;
    const segments = trimSlash(relative).split('/');
    const routeNames: string[] = [];
    const shape = segments
      .map((segment) => {
        if (!segment.startsWith(':')) return segment;
        routeNames.push(segment.slice(1));
        return ':';
      })
      .join('/');
    let known = shapes.get(shape);
    if (known === undefined) {
      const template = segments.map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/') || '/';
      known = { template, names: routeNames };
      shapes.set(shape, known);
    } else if (known.names.join('/') !== routeNames.join('/')) {
      warn('path-param-names', `${route.method} ${route.path} names its path parameters ${list(routeNames)}, but ${known.template} was documented first: it is documented there with ${list(known.names)}`, route.method, route.path);
    }
    const key = `${route.method} ${shape}`;
    if (seen.has(key)) {
      warn('shadowed-route', `${route.method} ${route.path} is never reached: an earlier route with the same method and path shape answers first. It is not documented`, route.method, route.path);
      continue;
    }
    seen.add(key);
    planned.push({ route, method: route.method, template: known.template, templateNames: known.names, routeNames });
  }
  return planned;
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function list(names: string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

/**
 * `GET /books/{id}/reviews` → `getBooksByIdReviews`; `GET /` → `getRoot`. Stable for a given route
 * table; collisions get `_2`, `_3` in registration order.
 */
export function operationIdFor(method: HTTPMethod, template: string): string {
  const words = template
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param === null ? pascal(segment) : `By${pascal(param[1]!)}`;
    })
    .join('');
  return method.toLowerCase() + (words === '' ? 'Root' : words);
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}
