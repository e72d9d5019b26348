import { compose, type ComposedMiddleware } from './compose.js';
import type { Context } from './context.js';
import { normalizePath, TrieMatcher, type Leaf, type MatchResult } from './internal/matcher.js';
import { RESOLVED } from './internal/resolved.js';
import { ALLOWED_METHODS, AROUND, ASSERT_FREE, LOOKUP, MATCH, PARAMS, SETTLE } from './internal/symbols.js';
import { decodePathPart, decodeUnreserved } from './internal/target.js';
import { checkTimeout } from './deadline.js';
import { metaOf, schemaOf } from './route-meta.js';
import {
  HTTP_METHODS,
  type AnyMiddleware,
  type HTTPMethod,
  type Middleware,
  type Next,
  type RouteContext,
  type Route,
  type RouteDefinition,
  type RouteMatch,
  type RouteMeta,
  type RouteSchema,
  type RouterConfig,
} from './types.js';

export { ROUTE_META, ROUTE_SCHEMA } from './route-meta.js';

const NONE: readonly AnyMiddleware[] = Object.freeze([]);
/** The params of a static route's match: none, shared (the pipeline leaves `ctx.params` alone for them). */
const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);
const UPPER_METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

/** Handlers for a route at path `P`: middleware followed by the final handler. */
export type RouteHandlers<P extends string> = Array<Middleware<RouteContext<P>>>;

/** A route-registering method (`get`, `post`, …): `(path, ...handlers)`, params typed from the path. */
export interface RouteMethod<Self> {
  <P extends string>(path: P, ...handlers: RouteHandlers<P>): Self;
  (path: string, ...handlers: AnyMiddleware[]): Self;
}

/** @internal The route-registering methods of `Router` and `Application`, and the methods each registers. */
export const ROUTE_VERBS = {
  get: ['GET'],
  post: ['POST'],
  put: ['PUT'],
  patch: ['PATCH'],
  delete: ['DELETE'],
  options: ['OPTIONS'],
  head: ['HEAD'],
  all: HTTP_METHODS,
} as const satisfies Record<string, readonly HTTPMethod[]>;

/** @internal The name of a route-registering method. */
export type RouteVerb = keyof typeof ROUTE_VERBS;

interface RouteEntry {
  kind: 'route';
  methods: readonly HTTPMethod[];
  path: string;
  handlers: AnyMiddleware[];
  schema: RouteSchema | undefined;
  meta: RouteMeta | undefined;
  /** The route's own `timeout`, checked. */
  timeout?: number | undefined;
  /** Where the route was registered (its stack is read only to report a clash). */
  site: Error;
}

/** A route as the duplicate check knows it: the method, the full path and where it came from. */
interface Registration {
  method: HTTPMethod;
  path: string;
  entry: RouteEntry;
}

/** A registration and the unmounted router whose registry it goes into. */
interface Placed {
  root: Router;
  registration: Registration;
}

interface MountEntry {
  kind: 'mount';
  prefix: string;
  router: Router;
}

/** @internal A route with its full path and composed chain, ready to match. */
export interface CompiledRoute {
  route: Route;
  chain: ComposedMiddleware<Context>;
  /** Whether the path has `:name` segments (static matches leave `ctx.params` as it is). */
  dynamic: boolean;
}

/** Joins a prefix and a path: `/api` + `/users` → `/api/users`, `/api` + `/` → `/api`. */
export function joinPaths(prefix: string, path: string): string {
  const p = normalizePath(prefix === '' || prefix === '/' ? '' : withSlash(prefix));
  const rest = path === '' || path === '/' ? '' : withSlash(path);
  const joined = p + rest;
  return joined === '' ? '/' : joined;
}

function withSlash(path: string): string {
  // Stored as requests are matched: non-ASCII encoded, unreserved characters decoded.
  const encoded = decodeUnreserved(/[^\x21-\x7e]/.test(path) ? encodeURI(path) : path);
  return encoded.charCodeAt(0) === 47 ? encoded : `/${encoded}`;
}

function assertHandlers(path: string, handlers: unknown[]): asserts handlers is AnyMiddleware[] {
  if (typeof path !== 'string') throw new TypeError('Route path must be a string');
  // The same checks the matcher makes when the table is compiled, made at registration so the
  // mistake shows where it was written (a prefix can still repeat a name; that shows at compile).
  const names: string[] = [];
  for (const segment of path.split('/')) {
    if (segment.charCodeAt(0) !== 58 /* : */) continue;
    const name = segment.slice(1);
    if (name === '') throw new Error(`Route "${path}" has a ":" segment without a name`);
    if (names.includes(name)) throw new Error(`Route "${path}" repeats the param name "${name}"`);
    names.push(name);
  }
  if (handlers.length === 0) throw new TypeError(`Route "${path}" needs at least one handler`);
  handlers.forEach((h, i) => {
    if (typeof h !== 'function') throw new TypeError(`Handler ${i} of route "${path}" must be a function, got ${h === null ? 'null' : typeof h}`);
  });
}

/**
 * Registers routes and middleware. Routers nest (`group`, `use(prefix, router)`); `use(mw)`
 * applies to this router's routes, including those registered before the `use` call.
 * @example
 * const users = new Router({ prefix: '/users' });
 * users.get('/:id', (ctx) => ctx.json({ id: ctx.params.id }));
 */
export class Router {
  /** Registers a GET route. */
  declare get: RouteMethod<this>;
  /** Registers a POST route. */
  declare post: RouteMethod<this>;
  /** Registers a PUT route. */
  declare put: RouteMethod<this>;
  /** Registers a PATCH route. */
  declare patch: RouteMethod<this>;
  /** Registers a DELETE route. */
  declare delete: RouteMethod<this>;
  /** Registers an OPTIONS route. */
  declare options: RouteMethod<this>;
  /** Registers a HEAD route (GET routes answer HEAD without a body when no HEAD route exists). */
  declare head: RouteMethod<this>;
  /** Registers a route for every HTTP method. */
  declare all: RouteMethod<this>;

  static {
    // The verbs are methods on the prototype, one per entry of ROUTE_VERBS; their types are the
    // declarations above.
    for (const [verb, methods] of Object.entries(ROUTE_VERBS)) {
      const register = {
        [verb](this: Router, path: string, ...handlers: unknown[]): Router {
          return this.#add(methods, path, handlers);
        },
      }[verb];
      Object.defineProperty(this.prototype, verb, { value: register, writable: true, configurable: true });
    }
  }

  readonly #prefix: string;
  readonly #entries: Array<RouteEntry | MountEntry> = [];
  readonly #middleware: AnyMiddleware[] = [];
  readonly #parents = new Set<Router>();
  /**
   * Middleware that runs around this router's routes without being in their chain (the
   * application's global middleware, run by its pipeline); it still lends schema and meta to the records.
   */
  #around: readonly AnyMiddleware[] = NONE;
  /** While this router is not mounted: every registration below it, by method and path shape. */
  #registry: Map<string, Registration> | undefined;
  #compiled: { matcher: TrieMatcher<CompiledRoute>; routes: Route[] } | undefined;

  constructor(config: RouterConfig = {}) {
    this.#prefix = config.prefix ?? '';
    if (config.middleware !== undefined) for (const mw of config.middleware) this.use(mw);
  }

  /** Registers a route given as a record: `{ method, path, handler, middleware?, schema?, meta? }`. */
  route(definition: RouteDefinition): this {
    const { handler, middleware = [], schema, meta } = definition;
    const { methods, path } = methodsOf(definition);
    return this.#add(methods, path, [...middleware, handler], schema, meta, checkTimeout(`The timeout of route "${path}"`, definition.timeout));
  }

  /** Registers the routes that `fn` adds under `prefix`; `use` inside applies to those routes only. */
  group(prefix: string, fn: (router: Router) => void): this {
    if (typeof fn !== 'function') throw new TypeError('group(prefix, fn) needs a function');
    const child = new Router({ prefix });
    fn(child);
    return this.#mount('', child);
  }

  /** Adds middleware to this router's routes, or mounts a router under a prefix. */
  use(middleware: Middleware): this;
  use(middleware: AnyMiddleware): this;
  use(prefix: string, router: Router): this;
  use(router: Router): this;
  use(first: string | Router | Middleware | AnyMiddleware, second?: Router): this {
    if (typeof first === 'string') {
      if (!(second instanceof Router)) throw new TypeError('use(prefix, router) needs a Router');
      return this.#mount(first, second);
    }
    if (first instanceof Router) return this.#mount('', first);
    if (typeof first !== 'function') throw new TypeError(`use() expects a middleware function or a Router, got ${first === null ? 'null' : typeof first}`);
    this.#middleware.push(first as AnyMiddleware);
    this.#touch();
    return this;
  }

  /** Finds the route for a method and path: `{ route, params }` or null. */
  findRoute(method: string, path: string): RouteMatch | null {
    // One scan for `%` serves both decodings: the path's unreserved escapes and the params'.
    const escaped = path.indexOf('%') !== -1;
    const decoded = escaped ? decodeUnreserved(path) : path;
    const matcher = this.#compile().matcher;
    let leaf = lookup(matcher, method, decoded);
    if (leaf === null) {
      // Methods almost always come upper case: only a miss pays for checking.
      if (UPPER_METHODS.has(method)) return null;
      leaf = lookup(matcher, method.toUpperCase(), decoded);
      if (leaf === null) return null;
    }
    const { route, dynamic } = leaf.value;
    if (!dynamic) return { route, params: {} };
    const params = matcher[PARAMS](leaf, decoded);
    if (escaped) decodeParams(params);
    return { route, params };
  }

  /** Every route with its full path, in registration order. */
  getRoutes(): Route[] {
    return this.#compile().routes.slice();
  }

  /**
   * @internal Matches a request's path, whose unreserved escapes are already decoded (`ctx.path`
   * is; `findRoute` decodes its argument), then percent-decodes the params. Throws a 400 HTTPError
   * when the path's percent-encoding is bad, whether or not a route matches.
   */
  [MATCH](method: string, path: string): MatchResult<CompiledRoute> | null {
    // A param can only hold a percent-escape if the path has one: most requests skip both checks.
    const escaped = path.indexOf('%') !== -1;
    if (escaped) decodePathPart(path);
    const matcher = this.#compile().matcher;
    const leaf = lookup(matcher, method, path);
    if (leaf === null) return null;
    const value = leaf.value;
    if (!value.dynamic) return { value, params: NO_PARAMS };
    const params = matcher[PARAMS](leaf, path);
    if (escaped) decodeParams(params);
    return { value, params };
  }

  /**
   * @internal The methods some route answers `path` (decoded as for `MATCH`) with, sorted: the
   * `Allow` list of a 405. One lookup per method, made only for requests no route matched.
   */
  [ALLOWED_METHODS](path: string): string[] {
    const matcher = this.#compile().matcher;
    const allowed: string[] = [];
    for (const method of HTTP_METHODS) if (lookup(matcher, method, path) !== null) allowed.push(method);
    return allowed.sort();
  }

  /**
   * @internal Sets the middleware that runs around this router's routes without being in their
   * chain (the application's global middleware): the route records list the schema and meta it carries.
   */
  [AROUND](middleware: readonly AnyMiddleware[]): void {
    this.#around = middleware;
    this.#touch();
  }

  /** Marks the compiled table stale, here and in every router this one is mounted in. */
  #touch(): void {
    this.#compiled = undefined;
    for (const parent of this.#parents) parent.#touch();
  }

  #mount(prefix: string, router: Router): this {
    if (router === this || router.#contains(this)) throw new Error('A router cannot be mounted inside itself');
    const site = captureSite();
    const found: Placed[] = [];
    for (const { root, prefix: base } of Router.#places(this)) {
      Router.#collect(router, joinPaths(joinPaths(base, this.#prefix), prefix), (registration) => found.push({ root, registration }));
    }
    Router.#claim(found, site);
    this.#entries.push({ kind: 'mount', prefix, router });
    router.#parents.add(this);
    // Mounted: its routes are checked in the registries of the routers above it from now on.
    router.#registry = undefined;
    this.#touch();
    return this;
  }

  /**
   * @internal Throws as registering the route would, without registering it (an operation checks
   * its REST route before any plugin sees it).
   */
  [ASSERT_FREE](definition: RouteDefinition): void {
    const { methods, path } = methodsOf(definition);
    const entry: RouteEntry = { kind: 'route', methods, path, handlers: [], schema: undefined, meta: definition.meta, site: captureSite() };
    Router.#claim(this.#registrationsOf(entry), entry.site, true);
  }

  /** The registrations of a new route of this router, in each unmounted router above it (or this one). */
  #registrationsOf(entry: RouteEntry): Placed[] {
    const found: Placed[] = [];
    for (const { root, prefix } of Router.#places(this)) {
      const path = joinPaths(joinPaths(prefix, this.#prefix), entry.path);
      for (const method of entry.methods) found.push({ root, registration: { method, path, entry } });
    }
    return found;
  }

  /**
   * Records each registration in the registry of its unmounted router, or throws naming both
   * registrations when one is already there (nothing is recorded then).
   */
  static #claim(found: readonly Placed[], site: Error, dryRun = false): void {
    const pending = new Map<Router, Map<string, Registration>>();
    for (const { root, registration } of found) {
      const key = `${registration.method} ${pathShape(registration.path)}`;
      let added = pending.get(root);
      if (added === undefined) pending.set(root, (added = new Map<string, Registration>()));
      const first = root.#registryOf().get(key) ?? added.get(key);
      if (first !== undefined) throw duplicateRoute(first, registration, site);
      added.set(key, registration);
    }
    if (dryRun) return;
    for (const [root, added] of pending) {
      const registry = root.#registryOf();
      for (const [key, registration] of added) registry.set(key, registration);
    }
  }

  /** This (unmounted) router's registry, built from its tree the first time it is needed. */
  #registryOf(): Map<string, Registration> {
    if (this.#registry !== undefined) return this.#registry;
    const registry = new Map<string, Registration>();
    Router.#collect(this, '', (registration) => {
      registry.set(`${registration.method} ${pathShape(registration.path)}`, registration);
    });
    return (this.#registry = registry);
  }

  /**
   * Each place `router` sits in the tree of an unmounted router: the prefix its own prefix is joined
   * to there (the same joins `#walk` makes). A router mounted twice has two places.
   */
  static #places(router: Router): Array<{ root: Router; prefix: string }> {
    if (router.#parents.size === 0) return [{ root: router, prefix: '' }];
    const places: Array<{ root: Router; prefix: string }> = [];
    for (const parent of router.#parents) {
      for (const place of Router.#places(parent)) {
        const base = joinPaths(place.prefix, parent.#prefix);
        for (const entry of parent.#entries) {
          if (entry.kind === 'mount' && entry.router === router) places.push({ root: place.root, prefix: joinPaths(base, entry.prefix) });
        }
      }
    }
    return places;
  }

  /** Every registration of `router`'s tree, its full paths under `base`. */
  static #collect(router: Router, base: string, emit: (registration: Registration) => void): void {
    const prefix = joinPaths(base, router.#prefix);
    for (const entry of router.#entries) {
      if (entry.kind === 'mount') Router.#collect(entry.router, joinPaths(prefix, entry.prefix), emit);
      else for (const method of entry.methods) emit({ method, path: joinPaths(prefix, entry.path), entry });
    }
  }

  #contains(other: Router): boolean {
    return this.#entries.some((e) => e.kind === 'mount' && (e.router === other || e.router.#contains(other)));
  }

  #add(methods: readonly HTTPMethod[], path: string, handlers: unknown[], schema?: RouteSchema, meta?: RouteMeta, timeout?: number): this {
    assertHandlers(path, handlers);
    const entry: RouteEntry = { kind: 'route', methods, path, handlers, schema, meta, timeout, site: captureSite() };
    Router.#claim(this.#registrationsOf(entry), entry.site);
    this.#entries.push(entry);
    this.#touch();
    return this;
  }

  #compile(): { matcher: TrieMatcher<CompiledRoute>; routes: Route[] } {
    if (this.#compiled !== undefined) return this.#compiled;
    const matcher = new TrieMatcher<CompiledRoute>();
    const routes: Route[] = [];
    Router.#walk(this, '', [], this.#around, (methods, route, chain) => {
      const dynamic = route.path.indexOf('/:') !== -1;
      for (const method of methods) {
        const record: Route = { ...route, method };
        routes.push(record);
        matcher.add(method, record.path, { route: record, chain, dynamic });
      }
    });
    this.#compiled = { matcher, routes };
    return this.#compiled;
  }

  /**
   * Walks the router tree in registration order, emitting each route with its full chain.
   * `around` is middleware that runs around the routes without being in their chain (the
   * application's global middleware): it still contributes schema and meta to the records.
   */
  static #walk(
    router: Router,
    base: string,
    inherited: readonly AnyMiddleware[],
    around: readonly AnyMiddleware[],
    emit: (methods: readonly HTTPMethod[], route: Omit<Route, 'method'>, chain: ComposedMiddleware<Context>) => void,
  ): void {
    const prefix = joinPaths(base, router.#prefix);
    const middleware = [...inherited, ...router.#middleware];
    for (const entry of router.#entries) {
      if (entry.kind === 'mount') {
        Router.#walk(entry.router, joinPaths(prefix, entry.prefix), middleware, around, emit);
        continue;
      }
      const handler = entry.handlers[entry.handlers.length - 1]!;
      const own = entry.handlers.slice(0, -1);
      const chainList = [...middleware, ...own, handler];
      const route: Omit<Route, 'method'> = {
        path: joinPaths(prefix, entry.path),
        handler,
        middleware: own,
      };
      const described = around.length === 0 ? chainList : [...around, ...chainList];
      const schema = mergeSchema(entry.schema, described);
      if (schema !== undefined) route.schema = schema;
      const meta = mergeMeta(entry.meta, described);
      if (meta !== undefined) route.meta = meta;
      if (entry.timeout !== undefined) route.timeout = entry.timeout;
      // With middleware in front of it, the handler is followed by "nothing answered means 404",
      // so the route's own middleware reads the final status after `await next()` too.
      if (chainList.length > 1) chainList[chainList.length - 1] = settling(handler as Middleware<Context>) as AnyMiddleware;
      emit(entry.methods, route, compose<Context>(chainList as Middleware<Context>[]));
    }
  }
}

/** The methods of a route record, checked. */
function methodsOf(definition: RouteDefinition): { methods: readonly HTTPMethod[]; path: string } {
  const { method, path } = definition;
  const methods = method === 'ALL' ? HTTP_METHODS : Array.isArray(method) ? method : [method];
  for (const m of methods) if (!HTTP_METHODS.includes(m)) throw new TypeError(`Unknown HTTP method "${String(m)}" for route "${path}"`);
  return { methods, path };
}

/** What makes two paths the same route: param names do not count, nor does one trailing slash. */
function pathShape(path: string): string {
  const normalized = normalizePath(path);
  if (normalized.indexOf(':') === -1) return normalized;
  return normalized
    .split('/')
    .map((segment) => (segment.charCodeAt(0) === 58 /* : */ ? ':' : segment))
    .join('/');
}

/**
 * Frames kept when capturing where a route was registered: enough to get past the framework's own
 * (six at most, for a route added inside `app.group()`), few enough that each route keeps little.
 */
const SITE_FRAMES = 12;

/** Where the caller is: an Error whose stack is only formatted if a clash is reported. */
function captureSite(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = SITE_FRAMES;
  try {
    return new Error('registered here');
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The first frame of `site` outside the framework's own files: `file:line:column`. */
function placeOf(site: Error): string {
  const frames = (site.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
  const location = (frame: string): string => {
    const inParens = /\((.*)\)\s*$/.exec(frame);
    return (inParens ? inParens[1]! : frame.trim().slice(3)).replace(/^file:\/\//, '');
  };
  const own = location(frames[0] ?? '');
  const ownDir = own.slice(0, Math.max(own.lastIndexOf('/'), own.lastIndexOf('\\')) + 1);
  for (const frame of frames) {
    const where = location(frame);
    if (where.startsWith('node:') || where.startsWith('native')) continue;
    // The framework's own files sit beside this one (its tests excepted).
    if (ownDir !== '' && where.startsWith(ownDir) && !/\.(test|spec)\.[cm]?[jt]s:/.test(where)) continue;
    const cwd = typeof process === 'object' ? `${process.cwd()}/` : '';
    return cwd !== '/' && where.startsWith(cwd) ? where.slice(cwd.length) : where;
  }
  return 'an unknown place';
}

/** Who registered a route, when it was not written by hand: `by operation "name"`. */
function byWhom(entry: RouteEntry): string {
  const op = entry.meta?.operation;
  return op !== undefined ? ` by operation "${op.name}"` : '';
}

/** The error for a second registration of a method and path shape. */
function duplicateRoute(first: Registration, now: Registration, site: Error): Error {
  const as = first.path === now.path ? '' : ` as ${first.method} ${first.path}`;
  return new Error(
    `${now.method} ${now.path} is already registered${as}${byWhom(first.entry)} ` +
      `(first at ${placeOf(first.entry.site)}, now at ${placeOf(site)}${byWhom(now.entry)})`,
  );
}

/**
 * The route's leaf for a method: the one place a HEAD request falls back to the GET route (so the
 * `Allow` list of a path with a GET route names HEAD too).
 */
function lookup(matcher: TrieMatcher<CompiledRoute>, method: string, path: string): Leaf<CompiledRoute> | null {
  return matcher[LOOKUP](method, path) ?? (method === 'HEAD' ? matcher[LOOKUP]('GET', path) : null);
}

/** Percent-decodes params in place (every match makes a fresh params object). */
function decodeParams(params: Record<string, string>): void {
  for (const key in params) params[key] = decodePathPart(params[key]!);
}

/**
 * @internal `run`, then the "nothing answered" 404 (`ctx[SETTLE]`) once it has finished: the last
 * step of a route's chain behind middleware and of the application's chain behind global
 * middleware, so that the middleware reads the final status after `await next()`. What `run`
 * returned goes on to that `await next()`, as compose passes it; a synchronous finish (or the
 * shared resolved promise) settles at once, with no promise callback.
 */
export function settling(run: (ctx: Context, next: Next) => unknown): Middleware<Context> {
  return (ctx, next) => {
    const result = run(ctx, next);
    if (result instanceof Promise && result !== RESOLVED) {
      return result.then((value: unknown) => {
        ctx[SETTLE]();
        return value;
      });
    }
    ctx[SETTLE]();
    return result;
  };
}

function mergeSchema(explicit: RouteSchema | undefined, chain: readonly AnyMiddleware[]): RouteSchema | undefined {
  let schema = explicit;
  for (const fn of chain) {
    const attached = schemaOf(fn);
    if (attached !== undefined) schema = { ...attached, ...schema };
  }
  return schema;
}

function mergeMeta(explicit: RouteMeta | undefined, chain: readonly AnyMiddleware[]): RouteMeta | undefined {
  let meta = explicit;
  for (const fn of chain) {
    const attached = metaOf(fn);
    if (attached !== undefined) meta = { ...attached, ...meta };
  }
  return meta;
}
