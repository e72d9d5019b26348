import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ResolvedStreamsConfig } from './config.js';
import type { Context, ContextSettings } from './context.js';
import type { LogFunction } from './internal/logging.js';
import type { Operation } from './operation.js';
import { createOriginCheck, type WithHeaders } from './origin-policy.js';
import { createPerCallAdmission } from './per-call.js';
import type { RequestContext } from './request-context.js';
import type { OpenStream, StreamOpenOptions } from './stream-registry.js';
import { tellResponseHooks } from './responder.js';
import type { AnyMiddleware, Middleware, Route } from './types.js';

/** Where the server listens, as `listen()` resolves it. */
export interface ListenInfo {
  port: number;
  host: string;
  /** `http://<address>:<port>` with the address bound: `http://[::]:3000` when every interface is, `http://127.0.0.1:3000` for the loopback. */
  url: string;
  /** An address to open on this machine: `http://localhost:3000` when every interface is bound, else `url`. */
  localUrl: string;
}

/** Options of `host.claimPath()`. */
export interface ClaimOptions {
  /** What `ctx.protocol` says for requests to the claimed path. @default 'http' */
  protocol?: string;
  /**
   * Middleware run for requests to the claimed path only, around the global middleware (inside
   * the wrappers): what that middleware throws on the path reaches it, so a protocol can answer it
   * in its own shape. Other requests never pass it.
   */
  guard?: AnyMiddleware;
}

/**
 * Takes an HTTP upgrade request (`Upgrade: websocket`) on a path claimed with `host.onUpgrade`:
 * the socket is the handler's from now on (answer, upgrade or destroy it).
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Told once per HTTP request, after the response (the error handler's included) was written: `status` is the one sent. */
export type ResponseHook = (ctx: Context, status: number) => void;

/** Told once per HTTP request, synchronously, just before its chain runs (requests answered before it — 414, 503 while closing — are not). */
export type RequestHook = (ctx: Context) => void;

/** Options of `host.wrap()`. */
export interface WrapOptions {
  /**
   * `false`: the middleware wraps the calls of the other protocols only (what `host.wrappers()`
   * gives them), never an HTTP request. A plugin that observes HTTP requests with `onRequest` and
   * `onResponse` then adds no step to their chain. @default true
   */
  http?: boolean;
}

/**
 * What a plugin gets from the application it is registered on: exactly what plugins need, not the
 * whole application.
 */
export interface PluginHost {
  /**
   * Answers every request to exactly `path` with `handler`, after the global middleware, bypassing
   * the routes; `ctx.protocol` says `options.protocol` from the start of those requests.
   */
  claimPath(path: string, handler: AnyMiddleware, options?: ClaimOptions): this;
  /**
   * Adds middleware that runs outside all global middleware (tracing, protocol error shaping),
   * outermost first: around every HTTP request and, through `wrappers()`, every call of the other
   * protocols; with `{ http: false }`, around those calls only.
   */
  wrap(middleware: Middleware<RequestContext> | AnyMiddleware, options?: WrapOptions): this;
  /**
   * The app's global middleware (`app.use`) as it is now, in order: read it per call to follow later
   * `use()`s. A frozen list that is the same object until the next `use()`, so comparing it by
   * identity tells whether it changed.
   */
  middleware(): readonly AnyMiddleware[];
  /**
   * The global middleware a long-lived connection (a WebSocket) runs once, when it opens: as
   * `middleware()`, without those marked per call (`markPerCall`: `rateLimit()`), which `perCall`
   * runs for each call it carries instead. The same frozen list until the next `use()`.
   */
  connectionMiddleware(): readonly AnyMiddleware[];
  /**
   * Admits one call (an operation, a subscription) carried by a connection that already ran
   * `connectionMiddleware()`: runs the global middleware marked per call on `ctx`, in order (each
   * `rateLimit()` counts one hit with the key it makes of `ctx`). Rejects with what one threw (the
   * 429 of a rate limit), or with an `HTTPError` of the status one set when it answered without
   * calling `next()`; resolves at once when none is marked. Not for HTTP requests: their global
   * middleware runs them already, once per request.
   */
  perCall(ctx: RequestContext): Promise<void>;
  /**
   * Admits a browser's request for a connection whose answer CORS headers cannot protect (a
   * WebSocket upgrade: browsers send the page's cookies with it and let the page read what comes
   * back): throws an `HTTPError` 403 unless the request has no `Origin` (not a browser), comes from
   * the server's own origin (the `Origin` names the `Host`), or the origin policies of the global
   * middleware (`cors()`, see `withOriginPolicy`) all admit it. Without one, a page of another
   * origin is admitted only when the request carries no `Cookie` nor `Authorization`. Call it first,
   * before the handshake, and answer its 403 as a plain HTTP response.
   */
  checkOrigin(req: WithHeaders): void;
  /** The wrappers added with `wrap()`, outermost first; the same frozen list until the next `wrap()`. */
  wrappers(): readonly AnyMiddleware[];
  /** The compiled route records (the same records until the routes change). */
  routes(): readonly Route[];
  /** The operations registered with `app.operation()`, in order (a frozen list, a new one after each registration). */
  operations(): readonly Operation[];
  /**
   * Runs `hook` for every operation registered so far and for each one registered later, before it
   * is registered: a hook that throws (a name clash, a type that cannot be generated) makes that
   * `app.operation()` call throw and the operation is not registered. Check here; build what you
   * serve from `operations()`.
   */
  onOperation(hook: (op: Operation) => void): this;
  /** Runs `hook` once the HTTP server is bound; `listen()` resolves after it (and rejects if it throws). */
  onListen(hook: (info: ListenInfo) => unknown): this;
  /** Runs `hook` when `close()` starts, alongside the HTTP drain (stop other listeners here). */
  onClose(hook: () => unknown): this;
  /** Runs `hook` after every request has drained (flush buffers here). */
  onClosed(hook: () => unknown): this;
  /** Runs `hook` after each HTTP response with the status sent; costs nothing while no hook is registered. */
  onResponse(hook: ResponseHook): this;
  /** Runs `hook` as each HTTP request starts, before its chain; costs nothing while no hook is registered. A hook that throws is logged. */
  onRequest(hook: RequestHook): this;
  /**
   * Tells the response hooks (`onResponse`) that `ctx`, a context the plugin made itself outside
   * the HTTP pipeline, was answered with `status`: what ends a request's server span, for
   * instance. A WebSocket connection's context, whose upgrade request the app's wrappers and
   * middleware ran on at `connection_init`, is told the status it was admitted (101) or refused with.
   */
  answered(ctx: Context, status: number): void;
  /**
   * Registers a stream about to open on any protocol, before its first byte: returns its `signal`
   * and `close()`, or throws an `HTTPError` (429 past `streams.maxPerClient` for the client key or
   * past `streams.maxOpen`, 503 while the app closes). `end(reason)` is called when the app closes
   * or the stream reaches `streams.maxDuration`; the transport then ends the stream with its
   * reconnect hint. Call `close()` when the stream ended for any reason: the app's `close()` waits
   * for every stream's (up to its `closeTimeout`).
   */
  openStream(options: StreamOpenOptions): OpenStream;
  /** The app's stream limits and timing (`ApplicationConfig.streams` with its defaults), which every transport follows. */
  readonly streams: ResolvedStreamsConfig;
  /**
   * Takes HTTP upgrade requests (`Upgrade: websocket`) to exactly `path` (the query string aside)
   * on the app's HTTP server. Upgrades no plugin took are refused (404) and their socket closed.
   */
  onUpgrade(path: string, handler: UpgradeHandler): this;
  /** The app's logger (`onLog`): the message is escaped, and a throwing logger cannot fail the caller. */
  log(message: string, error?: unknown): void;
  /** The settings contexts are made with (body limit, query keys, JSON depth, trustProxy). */
  readonly contextSettings: Readonly<ContextSettings>;
}

/** A plugin (a protocol, tracing, a document generator): attaches to an application through the host it is given. */
export interface Plugin {
  /** A unique name (`tracing`, `openapi`, a protocol's name). */
  readonly name: string;
  /** Called once by `app.register(plugin)`. */
  setup(host: PluginHost): void;
}

/** What the application lends a host: its own state, never the application itself. */
export interface HostBackend {
  readonly settings: Readonly<ContextSettings>;
  readonly log: LogFunction;
  claim(path: string, handler: AnyMiddleware, protocol: string, guard: AnyMiddleware | undefined): void;
  wrap(middleware: AnyMiddleware, http: boolean): void;
  middleware(): readonly AnyMiddleware[];
  wrappers(): readonly AnyMiddleware[];
  routes(): Route[];
  operations(): readonly Operation[];
  onOperation(hook: (op: Operation) => void): void;
  readonly listenHooks: Array<(info: ListenInfo) => unknown>;
  readonly closeHooks: Array<() => unknown>;
  readonly closedHooks: Array<() => unknown>;
  readonly responseHooks: ResponseHook[];
  readonly requestHooks: RequestHook[];
  openStream(options: StreamOpenOptions): OpenStream;
  readonly streams: ResolvedStreamsConfig;
  onUpgrade(path: string, handler: UpgradeHandler): void;
}

/** @internal The host object `register()` passes to `setup`. */
export function createPluginHost(backend: HostBackend): PluginHost {
  const hook = <T>(list: T[], what: string, fn: T): void => {
    if (typeof fn !== 'function') throw new TypeError(`${what} expects a function`);
    list.push(fn);
  };
  const admission = createPerCallAdmission(() => backend.middleware());
  const checkOrigin = createOriginCheck(() => backend.middleware(), backend.log);
  const host: PluginHost = {
    claimPath(path, handler, options = {}) {
      if (typeof handler !== 'function') throw new TypeError('claimPath expects a handler function');
      if (options.guard !== undefined && typeof options.guard !== 'function') throw new TypeError('claimPath expects its guard to be a middleware function');
      backend.claim(path, handler, options.protocol ?? 'http', options.guard);
      return this;
    },
    wrap(middleware, options) {
      if (typeof middleware !== 'function') throw new TypeError('wrap expects a middleware function');
      if (options !== undefined && !isWrapOptions(options)) throw new TypeError('wrap expects its options to be { http: boolean }');
      backend.wrap(middleware as AnyMiddleware, options?.http !== false);
      return this;
    },
    middleware: () => backend.middleware(),
    connectionMiddleware: () => admission.connection(),
    perCall: (ctx) => admission.run(ctx),
    checkOrigin(req) {
      checkOrigin(req);
    },
    wrappers: () => backend.wrappers(),
    routes: () => backend.routes(),
    operations: () => backend.operations(),
    onOperation(fn) {
      if (typeof fn !== 'function') throw new TypeError('onOperation expects a function');
      backend.onOperation(fn);
      return this;
    },
    onListen(fn) {
      hook(backend.listenHooks, 'onListen', fn);
      return this;
    },
    onClose(fn) {
      hook(backend.closeHooks, 'onClose', fn);
      return this;
    },
    onClosed(fn) {
      hook(backend.closedHooks, 'onClosed', fn);
      return this;
    },
    onResponse(fn) {
      hook(backend.responseHooks, 'onResponse', fn);
      return this;
    },
    onRequest(fn) {
      hook(backend.requestHooks, 'onRequest', fn);
      return this;
    },
    answered(ctx, status) {
      tellResponseHooks(backend.responseHooks, backend.log, ctx, status);
    },
    openStream: (options) => backend.openStream(options),
    streams: backend.streams,
    onUpgrade(path, handler) {
      if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`onUpgrade expects a path starting with "/", got ${String(path)}`);
      if (typeof handler !== 'function') throw new TypeError('onUpgrade expects a handler function');
      backend.onUpgrade(path, handler);
      return this;
    },
    log: (message, error) => backend.log(message, error),
    get contextSettings() {
      return backend.settings;
    },
  };
  return Object.freeze(host);
}

function isWrapOptions(value: unknown): value is WrapOptions {
  if (value === null || typeof value !== 'object') return false;
  const keys = Object.keys(value);
  return keys.every((key) => key === 'http') && ((value as WrapOptions).http === undefined || typeof (value as WrapOptions).http === 'boolean');
}
