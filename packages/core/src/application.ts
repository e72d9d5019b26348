import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { resolveConfig, type ApplicationConfig } from './config.js';
import { Context, type ContextSettings } from './context.js';
import { HTTPError } from './http-error.js';
import { asServerResponse, createInjectRequest, InjectResponseWriter, type InjectRequest, type InjectResponse } from './internal/inject.js';
import { createLogger, type LogFunction } from './internal/logging.js';
import { linkStreamHost } from './internal/stream-host.js';
import { RESOLVED } from './internal/resolved.js';
import { ASSERT_FREE } from './internal/symbols.js';
import { isOperation, operationRoute, type Operation } from './operation.js';
import { Pipeline } from './pipeline.js';
import { createPluginHost, type ListenInfo, type Plugin, type PluginHost, type RequestHook, type ResponseHook, type UpgradeHandler } from './plugin-host.js';
import { Responder, type ErrorHandler } from './responder.js';
import { ROUTE_VERBS, Router, type RouteMethod, type RouteVerb } from './router.js';
import { NodeServer, trackRequest } from './server.js';
import { StreamRegistry } from './stream-registry.js';
import type { AnyMiddleware, Middleware, Route, RouteDefinition, RouteMatch } from './types.js';

export type { ApplicationConfig, ErrorHandler, ListenInfo, Plugin, PluginHost, RouteMethod };

/**
 * The application: routes (a root `Router` it owns), global middleware that runs for every request
 * (matched or not), the HTTP server, error handling, in-process `inject`, and plugins.
 * @example
 * const app = new Application();
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen(3000);
 */
export class Application {
  /** Registers a GET route. */
  declare readonly get: RouteMethod<this>;
  /** Registers a POST route. */
  declare readonly post: RouteMethod<this>;
  /** Registers a PUT route. */
  declare readonly put: RouteMethod<this>;
  /** Registers a PATCH route. */
  declare readonly patch: RouteMethod<this>;
  /** Registers a DELETE route. */
  declare readonly delete: RouteMethod<this>;
  /** Registers an OPTIONS route. */
  declare readonly options: RouteMethod<this>;
  /** Registers a HEAD route (GET routes answer HEAD without a body when no HEAD route exists). */
  declare readonly head: RouteMethod<this>;
  /** Registers a route for every HTTP method. */
  declare readonly all: RouteMethod<this>;

  readonly #root = new Router();
  readonly #settings: ContextSettings;
  readonly #maxUrlLength: number;
  readonly #listenPort: number;
  readonly #listenHost: string | undefined;
  readonly #log: LogFunction;
  readonly #pipeline: Pipeline;
  readonly #responder: Responder;
  /** `onRequest` hooks, told as each request starts. */
  readonly #requestHooks: RequestHook[] = [];
  readonly #server: NodeServer;
  readonly #host: PluginHost;
  readonly #plugins = new Map<string, Plugin>();
  #operations: readonly Operation[] = Object.freeze([]);
  readonly #operationHooks: Array<(op: Operation) => void> = [];
  readonly #upgrades = new Map<string, UpgradeHandler>();

  constructor(config: ApplicationConfig = {}) {
    const resolved = resolveConfig(config);
    this.#settings = resolved.settings;
    this.#maxUrlLength = resolved.maxUrlLength;
    this.#listenPort = resolved.port;
    this.#listenHost = resolved.host;
    this.#log = createLogger(config.onLog);
    this.#pipeline = new Pipeline(this.#root, resolved.methodNotAllowed, resolved.timeout);
    const streams = new StreamRegistry(resolved.streams);
    linkStreamHost(this.#settings, { registry: streams, log: this.#log });
    // Open streams end first when the app closes (each with its reconnect hint), and close() waits
    // for their handlers to finish, as long as it waits for requests.
    const closeStreams = (): Promise<void> => streams.closeAll(resolved.closeTimeout);
    const hooks = {
      listenHooks: [() => streams.reopen()] as Array<(info: ListenInfo) => unknown>,
      closeHooks: [closeStreams] as Array<() => unknown>,
      closedHooks: [],
      responseHooks: [] as ResponseHook[],
      requestHooks: this.#requestHooks,
    };
    this.#server = new NodeServer({ ...resolved, ...hooks, log: this.#log, upgrade: this.#upgrade, takesUpgrades: () => this.#upgrades.size > 0 });
    // Development help, as compose's check of `next()`: read once, so production pays nothing per request.
    const warnSilentRoutes = process.env.NODE_ENV !== 'production';
    this.#responder = new Responder(this.#log, () => this.#server.closing, hooks.responseHooks, warnSilentRoutes);
    const pipeline = this.#pipeline;
    this.#host = createPluginHost({
      ...hooks,
      settings: this.#settings,
      log: this.#log,
      claim: (path, handler, protocol, guard) => pipeline.claim(path, handler, protocol, guard),
      wrap: (middleware, http) => pipeline.wrap(middleware, http),
      middleware: () => pipeline.middleware(),
      wrappers: () => pipeline.wrappers(),
      routes: () => this.#root.getRoutes(),
      operations: () => this.#operations,
      onOperation: (hook) => {
        for (const op of this.#operations) hook(op);
        this.#operationHooks.push(hook);
      },
      openStream: (options) => streams.open(options),
      streams: resolved.streams,
      onUpgrade: (path, handler) => {
        if (this.#upgrades.has(path)) throw new Error(`Upgrades on ${path} are already taken`);
        this.#upgrades.set(path, handler);
      },
    });
    // The verbs register on the root router and return the application; bound to it, as they are
    // the application's own properties (`const { get } = app` works).
    const root = this.#root;
    for (const verb of Object.keys(ROUTE_VERBS) as RouteVerb[]) {
      const register = (path: string, ...handlers: AnyMiddleware[]): this => {
        root[verb](path, ...handlers);
        return this;
      };
      Object.defineProperty(this, verb, { value: register, writable: true, enumerable: true, configurable: true });
    }
  }

  /** Registers a route given as a record: `{ method, path, handler, middleware?, schema?, meta? }`. */
  route(definition: RouteDefinition): this {
    this.#root.route(definition);
    return this;
  }

  /** Registers the routes that `fn` adds under `prefix`; `use` inside applies to those routes only. */
  group(prefix: string, fn: (router: Router) => void): this {
    this.#root.group(prefix, fn);
    return this;
  }

  /** Adds global middleware, which runs for every request, matched or not; or mounts a router (under a prefix). */
  use(middleware: Middleware): this;
  use(middleware: AnyMiddleware): this;
  use(prefix: string, router: Router): this;
  use(router: Router): this;
  use(first: string | Router | Middleware | AnyMiddleware, second?: Router): this {
    if (typeof first === 'string') this.#root.use(first, second as Router);
    else if (first instanceof Router) this.#root.use(first);
    else if (typeof first !== 'function') throw new TypeError(`use() expects a middleware function or a Router, got ${first === null ? 'null' : typeof first}`);
    else this.#pipeline.use(first as AnyMiddleware);
    return this;
  }

  /** Finds the route for a method and path: `{ route, params }` or null. */
  findRoute(method: string, path: string): RouteMatch | null {
    return this.#root.findRoute(method, path);
  }

  /** Every route with its full path, in registration order. */
  getRoutes(): Route[] {
    return this.#root.getRoutes();
  }

  /** Replaces the default error handler (which sends `{ error, message, code, details? }`). */
  onError(handler: ErrorHandler): this {
    if (typeof handler !== 'function') throw new TypeError('onError expects a function');
    this.#responder.errorHandler = handler;
    return this;
  }

  /** Replaces the default 404 answer for requests that match no route. */
  notFound(handler: Middleware): this {
    if (typeof handler !== 'function') throw new TypeError('notFound expects a function');
    this.#pipeline.notFound(handler);
    return this;
  }

  /**
   * Serves an operation (made by `defineOperation`) on every protocol it names: its REST route here,
   * and its binding on each other protocol through the registered plugins. Throws when the name is
   * taken or a plugin cannot serve it (a name clash in a generated schema, a type it cannot generate).
   * @example
   * app.operation(getBook);
   */
  operation(op: Operation): this {
    if (!isOperation(op)) throw new TypeError('operation() expects an operation made by defineOperation()');
    if (this.#operations.some((known) => known.name === op.name)) throw new Error(`An operation named "${op.name}" is already registered`);
    // The REST route is checked first: a taken path leaves the operation registered nowhere.
    const route = op.rest !== undefined ? operationRoute(op) : undefined;
    if (route !== undefined) this.#root[ASSERT_FREE](route);
    for (const hook of this.#operationHooks) hook(op);
    if (route !== undefined) this.#root.route(route);
    this.#operations = Object.freeze([...this.#operations, op]);
    return this;
  }

  /** Registers a plugin: its `setup` receives the plugin host (a narrow view of this application). */
  register(plugin: Plugin): this {
    if (this.#plugins.has(plugin.name)) throw new Error(`A plugin named "${plugin.name}" is already registered`);
    this.#plugins.set(plugin.name, plugin);
    plugin.setup(this.#host);
    return this;
  }

  /** The registered plugin of that name, if any. */
  getPlugin<T extends Plugin = Plugin>(name: string): T | undefined {
    return this.#plugins.get(name) as T | undefined;
  }

  /** The node request listener: `http.createServer(app.handler)` works too. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): void => {
    const ctx = new Context(req, res, this.#settings);
    const responder = this.#responder;
    trackRequest(req);
    if (this.#server.closing) return this.#server.refuse(ctx, responder.fail);
    if (ctx.url.length > this.#maxUrlLength) return responder.fail(ctx, new HTTPError(414, `Request URL is longer than ${this.#maxUrlLength} characters`));
    if (this.#requestHooks.length !== 0) this.#startRequest(ctx);
    let pending: Promise<void>;
    try {
      pending = this.#pipeline.run(ctx);
    } catch (err) {
      return responder.fail(ctx, err);
    }
    // A chain that finished synchronously is answered now: no promise callbacks per request.
    if (pending === RESOLVED) responder.finish(ctx);
    else pending.then(() => responder.finish(ctx), (err: unknown) => responder.fail(ctx, err));
  };

  /** Tells the `onRequest` hooks of a request; a hook that throws is logged and the request goes on. */
  #startRequest(ctx: Context): void {
    for (const hook of this.#requestHooks) {
      try {
        hook(ctx);
      } catch (err) {
        this.#log('An onRequest hook threw', err);
      }
    }
  }

  /**
   * The node 'upgrade' listener: hands the request to the plugin that took its path, or refuses it
   * (404; 503 while closing) and closes the socket. Attached only while some plugin takes upgrades.
   */
  readonly #upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const handler = this.#server.closing ? undefined : this.#upgrades.get(q === -1 ? url : url.slice(0, q));
    if (handler === undefined) {
      refuseUpgrade(socket, this.#server.closing ? 503 : 404);
      return;
    }
    try {
      handler(req, socket, head);
    } catch (err) {
      this.#log(`Error while upgrading ${url}`, err);
      refuseUpgrade(socket, 500);
    }
  };

  /** Sends a request through the whole pipeline in-process, without a socket. */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    const req = createInjectRequest(typeof request === 'string' ? { url: request } : request);
    const writer = new InjectResponseWriter(req);
    const done = new Promise<void>((resolve, reject) => writer.once('finish', resolve).once('error', reject));
    this.handler(req, asServerResponse(writer));
    await done;
    return writer.result();
  }

  /** The node HTTP server once `listen()` was called. */
  get server(): Server | undefined {
    return this.#server.server;
  }

  /**
   * Starts the HTTP server (and plugin listeners); resolves once all are bound, with the address
   * bound (`url` is `http://[::]:3000` when every interface is). Without a port or host, the
   * configuration's `port` and `host` are used (a free port on every interface by default).
   */
  listen(port?: number, host?: string, callback?: (info: ListenInfo) => void): Promise<ListenInfo>;
  listen(port: number | undefined, callback: (info: ListenInfo) => void): Promise<ListenInfo>;
  async listen(port?: number, hostOrCallback?: string | ((info: ListenInfo) => void), maybeCallback?: (info: ListenInfo) => void): Promise<ListenInfo> {
    const host = typeof hostOrCallback === 'string' ? hostOrCallback : this.#listenHost;
    const info = await this.#server.listen(this.handler, port ?? this.#listenPort, host);
    (typeof hostOrCallback === 'function' ? hostOrCallback : maybeCallback)?.(info);
    return info;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish (new requests on kept-alive
   * connections get 503 with `Connection: close`), cuts what is left after `closeTimeout`,
   * runs the plugins' close hooks, and resolves.
   */
  close(): Promise<void> {
    return this.#server.close();
  }
}

const UPGRADE_TEXT: Record<number, string> = { 404: 'Not Found', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/** Answers an upgrade request nobody takes with a bare status, and closes its socket. */
function refuseUpgrade(socket: Duplex, status: number): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: true, message: UPGRADE_TEXT[status] ?? 'Error', code: status });
  socket.end(`HTTP/1.1 ${status} ${UPGRADE_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.once('error', () => undefined);
  setTimeout(() => socket.destroy(), 1000).unref();
}
