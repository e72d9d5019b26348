import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import { compose, type ComposedMiddleware } from './compose.js';
import { Context, type ContextSettings, type TrustProxy } from './context.js';
import { errorBody, HTTPError, toHTTPError } from './http-error.js';
import { DEFAULT_BODY_LIMIT, hasBody } from './internal/body.js';
import { DEFAULT_MAX_JSON_DEPTH } from './internal/json.js';
import { escapeLogText, formatLogValue } from './internal/log-format.js';
import { asServerResponse, createInjectRequest, InjectResponseWriter, type InjectRequest, type InjectResponse } from './internal/inject.js';
import { DEFAULT_MAX_KEYS } from './internal/query.js';
import { reportUnhandledRejections } from './internal/rejections.js';
import { RESOLVED } from './internal/resolved.js';
import { Router } from './router.js';
import type { AnyMiddleware, Middleware } from './types.js';

/** How long `close()` leaves idle kept-alive connections open for requests already on the way. */
const IDLE_GRACE_MS = 500;

/** Where the last request read from a connection is kept (see `closeAfter`). */
const LAST_REQUEST: unique symbol = Symbol('fw.lastRequest');
type TrackedSocket = Socket & { [LAST_REQUEST]?: IncomingMessage };

/** `net.Server#close`: stops listening without http's sweep of idle connections. */
const netServerClose = NetServer.prototype.close as (this: Server, callback: () => void) => Server;

/** Server time-outs, in milliseconds. */
export interface TimeoutConfig {
  /** Time to receive the complete request headers. @default 10000 */
  headers?: number;
  /** Time to receive the complete request, body included. @default 30000 */
  request?: number;
  /** How long an idle kept-alive connection stays open. @default 5000 */
  keepAlive?: number;
}

/** Options of `new Application()` (and of `createApp` in `@fw/app`). */
export interface ApplicationConfig {
  /** Largest request body in bytes; more is answered 413. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** Most keys in a query string or URL-encoded body; more is answered 400. @default 1000 */
  maxQueryKeys?: number;
  /** Longest request URL (path and query); longer is answered 414. @default 8192 */
  maxUrlLength?: number;
  /** Deepest nesting of objects and arrays in a JSON body; deeper is answered 400. @default 64 */
  maxJsonDepth?: number;
  /**
   * Answer a known path requested with a method it has no route for with `405` and `Allow`, and
   * `OPTIONS` on it with `204` and `Allow`; `false` answers both `404` like an unknown path. @default true
   */
  methodNotAllowed?: boolean;
  /** Which `X-Forwarded-For` hops `ctx.ip` believes. @default false (the socket address) */
  trustProxy?: TrustProxy;
  /** Server time-outs. */
  timeouts?: TimeoutConfig;
  /** How long `close()` waits for in-flight requests before cutting connections, in ms. @default 10000 */
  closeTimeout?: number;
  /** Where server errors (5xx causes, failures in error handlers) are reported. @default console.error */
  onLog?: (message: string, error?: unknown) => void;
  /**
   * While listening, report unhandled promise rejections to `onLog` instead of letting Node end the
   * process; only when the process has no `unhandledRejection` listener of its own. @default true
   */
  logUnhandledRejections?: boolean;
}

/** Where the server listens, as `listen()` resolves it. */
export interface ListenInfo {
  port: number;
  host: string;
  /** `http://<host>:<port>`, with `localhost` for a wildcard address. */
  url: string;
}

/** Handles an error: receives it as an HTTPError (the original is its `cause`) and answers through ctx. */
export type ErrorHandler = (error: HTTPError, ctx: Context) => unknown;

/** A protocol plugin: attaches to the application through its public hooks when registered. */
export interface Plugin {
  /** A unique name (`graphql`, `grpc`, `tracing`). */
  readonly name: string;
  /** Called once by `app.register(plugin)`. */
  setup(app: Application): void;
}

type Hook<T = void> = (arg: T) => unknown;

/** The default `onLog`: one escaped entry on stderr (the stack's frames on their own lines). */
function defaultLog(message: string, error?: unknown): void {
  console.error(error === undefined ? message : `${message} ${formatLogValue(error)}`);
}

/** The answer of last resort, when even the error answer could not be written. */
const INTERNAL_TEXT = JSON.stringify({ error: true, message: 'Internal Server Error', code: 500 });

/** Records the 404 for a request nobody answered. */
function answerMissing(ctx: Context): void {
  if (!ctx.responded) ctx._notFound();
}

/** Gives an unanswered request its 404 once `pending` settles; synchronous handlers skip the extra promise. */
function settleMissing(ctx: Context, pending: Promise<void>): Promise<void> {
  if (pending === RESOLVED) {
    answerMissing(ctx);
    return RESOLVED;
  }
  return pending.then(() => answerMissing(ctx));
}

/**
 * The application: a router whose `use(mw)` middleware runs for every request (matched or not),
 * plus the HTTP server, error handling, in-process `inject`, and hooks for protocol plugins.
 * @example
 * const app = new Application();
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen(3000);
 */
export class Application extends Router {
  /** The node HTTP server once `listen()` was called. */
  server: Server | undefined;
  private readonly settings: ContextSettings;
  private readonly config: Required<Omit<ApplicationConfig, 'trustProxy' | 'timeouts' | 'onLog' | 'logUnhandledRejections' | 'methodNotAllowed'>> & { timeouts: Required<TimeoutConfig> };
  private readonly log: (message: string, error?: unknown) => void;
  private readonly wrappers: AnyMiddleware[] = [];
  private readonly claims = new Map<string, { run: ComposedMiddleware<Context>; protocol: string }>();
  private readonly plugins = new Map<string, Plugin>();
  private readonly listenHooks: Array<Hook<ListenInfo>> = [];
  private readonly closeHooks: Array<Hook> = [];
  private readonly closedHooks: Array<Hook> = [];
  private errorHandler: ErrorHandler | undefined;
  private notFoundHandler: ComposedMiddleware<Context> | undefined;
  private dispatcher: { version: number; run: ComposedMiddleware<Context> } | undefined;
  private closing = false;
  private closePromise: Promise<void> | undefined;
  private readonly logRejections: boolean;
  private readonly methodNotAllowed: boolean;
  private stopRejectionLog: (() => void) | undefined;

  constructor(config: ApplicationConfig = {}) {
    super();
    const positive = (name: string, value: number | undefined, fallback: number): number => {
      if (value === undefined) return fallback;
      if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`${name} must be a positive number, got ${String(value)}`);
      return value;
    };
    const positiveInteger = (name: string, value: number | undefined, fallback: number): number => {
      if (value === undefined) return fallback;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
      return value;
    };
    this.config = {
      bodyLimit: positive('bodyLimit', config.bodyLimit, DEFAULT_BODY_LIMIT),
      maxQueryKeys: positive('maxQueryKeys', config.maxQueryKeys, DEFAULT_MAX_KEYS),
      maxUrlLength: positive('maxUrlLength', config.maxUrlLength, 8192),
      maxJsonDepth: positiveInteger('maxJsonDepth', config.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH),
      closeTimeout: positive('closeTimeout', config.closeTimeout, 10_000),
      timeouts: {
        headers: positive('timeouts.headers', config.timeouts?.headers, 10_000),
        request: positive('timeouts.request', config.timeouts?.request, 30_000),
        keepAlive: positive('timeouts.keepAlive', config.timeouts?.keepAlive, 5_000),
      },
    };
    this.settings = {
      bodyLimit: this.config.bodyLimit,
      maxKeys: this.config.maxQueryKeys,
      maxJsonDepth: this.config.maxJsonDepth,
      trustProxy: config.trustProxy ?? false,
    };
    const log = config.onLog ?? defaultLog;
    // Messages are escaped here, for every logger (they may hold a path from the wire). A logger
    // that throws must not turn an answered error into a crash, nor must the fallback.
    this.log = (message, error) => {
      const text = escapeLogText(message);
      try {
        log(text, error);
      } catch (failure) {
        try {
          console.error(`${text}${error === undefined ? '' : ` ${formatLogValue(error)}`} (onLog threw: ${formatLogValue(failure)})`);
        } catch {
          // Nowhere left to report to.
        }
      }
    };
    this.logRejections = config.logUnhandledRejections ?? true;
    this.methodNotAllowed = config.methodNotAllowed ?? true;
  }

  /** Replaces the default error handler (which sends `{ error, message, code, details? }`). */
  onError(handler: ErrorHandler): this {
    if (typeof handler !== 'function') throw new TypeError('onError expects a function');
    this.errorHandler = handler;
    return this;
  }

  /** Replaces the default 404 answer for requests that match no route. */
  notFound(handler: Middleware): this {
    if (typeof handler !== 'function') throw new TypeError('notFound expects a function');
    this.notFoundHandler = compose([handler]);
    return this;
  }

  /** Registers a protocol plugin; its `setup` attaches it through the hooks below. */
  register(plugin: Plugin): this {
    if (this.plugins.has(plugin.name)) throw new Error(`A plugin named "${plugin.name}" is already registered`);
    this.plugins.set(plugin.name, plugin);
    plugin.setup(this);
    return this;
  }

  /** The registered plugin of that name, if any. */
  getPlugin<T extends Plugin = Plugin>(name: string): T | undefined {
    return this.plugins.get(name) as T | undefined;
  }

  /**
   * Answers every request to exactly `path` with `handler`, after global middleware, bypassing the
   * routes. `protocol` is what `ctx.protocol` says for those requests (from the start of the request).
   */
  claimPath(path: string, handler: AnyMiddleware, options: { protocol?: string } = {}): this {
    if (this.claims.has(path)) throw new Error(`Path "${path}" is already claimed by a plugin`);
    this.claims.set(path, { run: compose<Context>([handler as Middleware<Context>]), protocol: options.protocol ?? 'http' });
    this._touch();
    return this;
  }

  /** Adds middleware that runs outside all global middleware (for tracing and the like). */
  wrap(middleware: AnyMiddleware): this {
    if (typeof middleware !== 'function') throw new TypeError('wrap expects a middleware function');
    this.wrappers.push(middleware);
    this._touch();
    return this;
  }

  /** Runs `fn` once the HTTP server is bound; `listen()` resolves after it (and rejects if it throws). */
  onListen(fn: Hook<ListenInfo>): this {
    this.listenHooks.push(fn);
    return this;
  }

  /** Runs `fn` when `close()` starts, alongside the HTTP drain (stop other listeners here). */
  onClose(fn: Hook): this {
    this.closeHooks.push(fn);
    return this;
  }

  /** Runs `fn` after every request has drained (flush buffers here). */
  onClosed(fn: Hook): this {
    this.closedHooks.push(fn);
    return this;
  }

  /** The global middleware, in `use` order (read-only; plugins may run it for other protocols). */
  getMiddleware(): readonly AnyMiddleware[] {
    return this._middleware.slice();
  }

  /** The wrappers added with `wrap()`, outermost first (plugins run them around other protocols' calls). */
  getWrappers(): readonly AnyMiddleware[] {
    return this.wrappers.slice();
  }

  /** The settings contexts are made with (for plugins that build contexts). */
  get contextSettings(): Readonly<ContextSettings> {
    return this.settings;
  }

  /** Global middleware runs for every request, so it is not part of each route's chain. */
  protected override _ownMiddlewareInChain(): boolean {
    return false;
  }

  /** The node request listener: `http.createServer(app.handler)` works too. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): void => {
    const ctx = new Context(req, res, this.settings);
    const socket = req.socket as TrackedSocket | null;
    if (socket !== null) socket[LAST_REQUEST] = req;
    if (this.closing) {
      res.setHeader('connection', 'close');
      const refuse = (): void => this.fail(ctx, new HTTPError(503, 'Server is shutting down'));
      // Read the body first: closing a socket with unread data makes the kernel send a reset,
      // which can destroy the 503 before the client reads it.
      if (hasBody(req) && !req.complete) {
        let refused = false;
        const once = (): void => {
          if (!refused) (refused = true), refuse();
        };
        req.once('end', once).once('error', once).resume();
      } else refuse();
      return;
    }
    if (ctx.url.length > this.config.maxUrlLength) {
      this.fail(ctx, new HTTPError(414, `Request URL is longer than ${this.config.maxUrlLength} characters`));
      return;
    }
    if (this.claims.size !== 0) {
      const claim = this.claims.get(ctx.path);
      if (claim !== undefined) {
        ctx.protocol = claim.protocol;
        ctx._claimed = claim.run;
      }
    }
    let pending: Promise<void>;
    try {
      pending = this.dispatch().run(ctx);
    } catch (err) {
      pending = Promise.reject(err);
    }
    // A chain that finished synchronously is answered now: no promise callbacks per request.
    if (pending === RESOLVED) this.finish(ctx);
    else
      pending.then(
        () => this.finish(ctx),
        (err: unknown) => this.fail(ctx, err),
      );
  };

  /** Sends a request through the whole pipeline in-process, without a socket. */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    const options = typeof request === 'string' ? { url: request } : request;
    const req = createInjectRequest(options);
    const writer = new InjectResponseWriter(req);
    const done = new Promise<void>((resolve, reject) => {
      writer.once('finish', resolve);
      writer.once('error', reject);
    });
    this.handler(req, asServerResponse(writer));
    await done;
    return writer.result();
  }

  /** Starts the HTTP server (and plugin listeners); resolves once all are bound. */
  listen(port?: number, host?: string, callback?: (info: ListenInfo) => void): Promise<ListenInfo>;
  listen(port: number, callback: (info: ListenInfo) => void): Promise<ListenInfo>;
  async listen(port = 0, hostOrCallback?: string | ((info: ListenInfo) => void), maybeCallback?: (info: ListenInfo) => void): Promise<ListenInfo> {
    const host = typeof hostOrCallback === 'string' ? hostOrCallback : undefined;
    const callback = typeof hostOrCallback === 'function' ? hostOrCallback : maybeCallback;
    if (this.server !== undefined) throw new Error('listen() was already called on this application');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`Invalid port: ${String(port)}`);
    const { timeouts } = this.config;
    const server = createServer(
      {
        requestTimeout: timeouts.request,
        // The headers are part of the request: node refuses a header time-out longer than the request's.
        headersTimeout: Math.min(timeouts.headers, timeouts.request),
        keepAliveTimeout: timeouts.keepAlive,
        // Node checks the two time-outs above on this interval (30 s by default).
        connectionsCheckingInterval: Math.min(1000, timeouts.headers, timeouts.request),
      },
      this.handler,
    );
    this.server = server;
    this.closing = false;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        this.server = undefined;
        reject(err.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use${host ? ` on ${host}` : ''}`, { cause: err }) : err);
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.removeListener('error', onError);
        resolve();
      });
    });
    server.on('error', (err) => this.log('HTTP server error', err));
    if (this.logRejections && this.stopRejectionLog === undefined) {
      this.stopRejectionLog = reportUnhandledRejections((reason) => this.log('Unhandled promise rejection (the server keeps running)', reason));
    }
    const address = server.address() as AddressInfo;
    const shownHost = address.address === '::' || address.address === '0.0.0.0' ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const info: ListenInfo = { port: address.port, host: address.address, url: `http://${shownHost}:${address.port}` };
    try {
      for (const hook of this.listenHooks) await hook(info);
    } catch (err) {
      await this.close().catch(() => undefined);
      throw err;
    }
    callback?.(info);
    return info;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish (new requests on kept-alive
   * connections get 503 with `Connection: close`), cuts what is left after `closeTimeout`,
   * runs the plugins' close hooks, and resolves.
   */
  close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    const server = this.server;
    let timers: NodeJS.Timeout[] = [];
    const drained = server === undefined
      ? RESOLVED
      : new Promise<void>((resolve) => {
          // Stop accepting connections without node's immediate sweep of idle kept-alive sockets:
          // a client may be sending its next request on one right now, and cutting it would lose
          // that request. Requests that arrive during the grace get 503 with Connection: close.
          netServerClose.call(server, () => resolve());
          const sweep = (): void => {
            server.closeIdleConnections();
          };
          const grace = setTimeout(() => {
            // http's own close() clears its time-out checker and closes what is idle now; the
            // "not running" error it reports is expected, since listening already stopped.
            server.close(() => undefined);
            // A response that started streaming before close() was called keeps its connection
            // alive when it ends, so keep closing connections that turn idle.
            const sweeper = setInterval(sweep, 100);
            sweeper.unref();
            timers.push(sweeper);
          }, Math.min(IDLE_GRACE_MS, this.config.closeTimeout));
          const force = setTimeout(() => server.closeAllConnections(), this.config.closeTimeout);
          timers = [grace, force];
          for (const timer of timers) timer.unref();
        });
    const results = await Promise.allSettled([drained, ...this.closeHooks.map(async (hook) => hook())]);
    for (const timer of timers) clearTimeout(timer);
    const closedResults = await Promise.allSettled(this.closedHooks.map(async (hook) => hook()));
    for (const result of [...results, ...closedResults]) if (result.status === 'rejected') this.log('Error while closing', result.reason);
    this.stopRejectionLog?.();
    this.stopRejectionLog = undefined;
    this.server = undefined;
    this.closePromise = undefined;
  }

  private dispatch(): { run: ComposedMiddleware<Context> } {
    if (this.dispatcher !== undefined && this.dispatcher.version === this._version) return this.dispatcher;
    const stage = this.routeStage;
    const chain = [...this.wrappers, ...this._middleware];
    // With global middleware around it, a request nobody answered is given its 404 here, so that
    // the middleware sees `ctx.statusCode === 404` after `await next()` (a logger logs 404s).
    const run: ComposedMiddleware<Context> = chain.length === 0
      ? (ctx) => stage(ctx)
      : compose<Context>([...(chain as Middleware<Context>[]), (ctx) => settleMissing(ctx, stage(ctx))]);
    this.dispatcher = { version: this._version, run };
    return this.dispatcher;
  }

  /** Claimed paths, then the route table, then the not-found answer. */
  private readonly routeStage = (ctx: Context): Promise<void> => {
    // The path was looked up among the claimed ones when the request came in.
    if (ctx._claimed !== undefined) return ctx._claimed(ctx);
    const path = ctx.path;
    if (path.indexOf('%') !== -1) {
      try {
        decodeURI(path);
      } catch {
        throw new HTTPError(400, 'Invalid percent-encoding in path');
      }
    }
    const found = this._match(ctx.method, path);
    if (found === null) return this.missing(ctx, path);
    if (found.value.dynamic) ctx.params = found.params;
    ctx.route = found.value.route;
    if (ctx._needsBody) return ctx.parseBody().then(() => found.value.chain(ctx));
    return found.value.chain(ctx);
  };

  /** No route for this method and path: 405 (or the OPTIONS answer) when other methods have one, else not found. */
  private missing(ctx: Context, path: string): Promise<void> {
    if (this.methodNotAllowed) {
      const allowed = this._allowedMethods(path);
      if (allowed.length !== 0) {
        const allow = allowed.join(', ');
        if (ctx.method === 'OPTIONS') {
          ctx.setHeader('allow', allow).status(204);
          return RESOLVED;
        }
        // Thrown, so that error middleware and onError see it like any other error.
        throw new HTTPError(405, 'Method Not Allowed', undefined, { headers: { allow } });
      }
    }
    if (this.notFoundHandler !== undefined) return this.notFoundHandler(ctx);
    ctx._notFound();
    return RESOLVED;
  }

  /** Writes what the chain recorded; a failure while writing goes to `onFailure`. */
  private finish(ctx: Context, onFailure: (ctx: Context, err: unknown) => void = this.fail): void {
    try {
      if (this.closing && !ctx.res.headersSent) this.closeAfter(ctx);
      ctx._flush();
    } catch (err) {
      onFailure.call(this, ctx, err);
    }
  }

  /** Answers a thrown value: through the custom error handler if there is one, else the default body. Never throws. */
  private fail(ctx: Context, thrown: unknown): void {
    try {
      this.answerError(ctx, thrown);
    } catch (failure) {
      this.lastResort(ctx, failure);
    }
  }

  private answerError(ctx: Context, thrown: unknown): void {
    const error = toHTTPError(thrown);
    if (error.statusCode >= 500) this.log(`Error on ${ctx.method} ${ctx.path}`, thrown);
    const res = ctx.res;
    if (ctx._rawInUse()) {
      // The response is already on the wire: all that is left is to cut it short.
      if (!res.writableEnded) res.destroy();
      return;
    }
    const handler = this.errorHandler;
    if (handler === undefined) {
      this.sendError(ctx, error);
      return;
    }
    // The custom handler starts from a clean response carrying the error's own headers.
    try {
      this.prepareError(ctx, error);
    } catch (err) {
      this.handlerFailed(ctx, err);
      return;
    }
    let result: unknown;
    try {
      result = handler(error, ctx);
    } catch (err) {
      this.handlerFailed(ctx, err);
      return;
    }
    const done = (): void => {
      try {
        if (ctx.responded) this.finish(ctx, this.handlerFailed);
        else this.sendError(ctx, error);
      } catch (failure) {
        this.lastResort(ctx, failure);
      }
    };
    if (result instanceof Promise) result.then(done, (err: unknown) => this.handlerFailed(ctx, err));
    else done();
  }

  /** The custom error handler threw (or its answer could not be written): the default answer for that failure. */
  private handlerFailed(ctx: Context, err: unknown): void {
    try {
      this.log('The error handler threw', err);
      if (ctx._rawInUse()) {
        if (!ctx.res.writableEnded) ctx.res.destroy();
        return;
      }
      this.sendError(ctx, toHTTPError(err));
    } catch (failure) {
      this.lastResort(ctx, failure);
    }
  }

  /**
   * Answers a plain 500 when the error answer itself failed (a thrown value whose getters throw
   * halfway through): written directly, so nothing of the failed answer can fail it again. Once the
   * response has started, the connection is cut instead. Never throws.
   */
  private lastResort(ctx: Context, failure: unknown): void {
    const res = ctx.res;
    try {
      this.log('Could not send the error response', failure);
      if (!res.headersSent && !res.writableEnded) {
        ctx._resetResponse();
        res.removeHeader('content-type');
        res.removeHeader('content-length');
        if (this.closing) res.setHeader('connection', 'close');
        res.writeHead(500, ['content-type', 'application/json; charset=utf-8', 'content-length', String(INTERNAL_TEXT.length)]);
        res.end(ctx.method === 'HEAD' ? undefined : INTERNAL_TEXT);
        return;
      }
    } catch {
      // Fall through to cutting the connection.
    }
    try {
      if (!res.writableEnded) res.destroy();
    } catch {
      // Nothing more can be done for this response.
    }
  }

  /** Clears what the chain recorded and sets the error's headers. */
  private prepareError(ctx: Context, error: HTTPError): void {
    const res = ctx.res;
    ctx._resetResponse();
    res.removeHeader('content-type');
    res.removeHeader('content-length');
    if (error.headers !== undefined) for (const [key, value] of Object.entries(error.headers)) res.setHeader(key, value);
    if (this.closing) this.closeAfter(ctx);
  }

  /**
   * While draining, marks the response `Connection: close` when it answers the last request read
   * from its connection. Not before: node writes pipelined responses in order and drops the
   * socket after a `close` one, so marking an earlier response would lose the answers queued
   * behind it.
   */
  private closeAfter(ctx: Context): void {
    const last = (ctx.req.socket as TrackedSocket | null)?.[LAST_REQUEST];
    if (last === undefined || last === ctx.req) ctx.res.setHeader('connection', 'close');
  }

  /** Sends the default error body `{ error: true, message, code, details? }`. */
  private sendError(ctx: Context, error: HTTPError): void {
    if (ctx._rawInUse()) return;
    try {
      this.prepareError(ctx, error);
      const body = errorBody(error);
      try {
        ctx.json(body, body.code);
      } catch (reason) {
        if (body.details === undefined) throw reason;
        // BigInt, a cycle, a toJSON that throws: the answer still goes out, only without details.
        this.log(`Error details could not be serialised on ${ctx.method} ${ctx.path}; answered without them`, reason);
        delete body.details;
        ctx.json(body, body.code);
      }
      ctx._flush();
    } catch (err) {
      this.lastResort(ctx, err);
    }
  }
}
