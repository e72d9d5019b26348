import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Context } from './context.js';
import { HTTPError } from './http-error.js';
import { hasBody } from './internal/body.js';
import type { LogFunction } from './internal/logging.js';
import { reportUnhandledRejections } from './internal/rejections.js';
import { RESOLVED } from './internal/resolved.js';
import type { ListenInfo } from './plugin-host.js';

/** How long `close()` leaves idle kept-alive connections open for requests already on the way. */
const IDLE_GRACE_MS = 500;

/** Where the last request read from a connection is kept (see `isLastRequest`). */
const LAST_REQUEST: unique symbol = Symbol('fw.lastRequest');
type TrackedSocket = Socket & { [LAST_REQUEST]?: IncomingMessage };

/** `net.Server#close`: stops listening without http's sweep of idle connections. */
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(server) below
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

/** What the server needs from the application. */
export interface ServerSettings {
  timeouts: Required<TimeoutConfig>;
  closeTimeout: number;
  logUnhandledRejections: boolean;
  log: LogFunction;
  listenHooks: ReadonlyArray<(info: ListenInfo) => unknown>;
  closeHooks: ReadonlyArray<() => unknown>;
  closedHooks: ReadonlyArray<() => unknown>;
  /** The 'upgrade' listener, attached when `takesUpgrades()` says some plugin takes upgrade requests. */
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  takesUpgrades: () => boolean;
}

/** Records `req` as the latest request read from its connection (pipelining bookkeeping). */
export function trackRequest(req: IncomingMessage): void {
  const socket = req.socket as TrackedSocket | null;
  if (socket !== null) socket[LAST_REQUEST] = req;
}

/**
 * Whether `req` is the last request read from its connection so far. Only the answer to that one may
 * say `Connection: close` while draining: node writes pipelined responses in order and drops the
 * socket after a `close` one, so marking an earlier response would lose the answers queued behind it.
 */
export function isLastRequest(req: IncomingMessage): boolean {
  const last = (req.socket as TrackedSocket | null)?.[LAST_REQUEST];
  return last === undefined || last === req;
}

/**
 * The node:http server of an application: listening with time-outs, and a graceful close that
 * drains in-flight requests (new ones on kept-alive connections get 503 with `Connection: close`).
 */
export class NodeServer {
  /** The node HTTP server while listening. */
  server: Server | undefined;
  /** Whether `close()` has started: requests are refused with 503. */
  closing = false;
  #closePromise: Promise<void> | undefined;
  /** Sockets handed to an upgrade handler: node's server no longer tracks them, but still waits for them to close. */
  readonly #upgraded = new Set<Duplex>();
  #stopRejectionLog: (() => void) | undefined;

  constructor(private readonly settings: ServerSettings) {}

  /** Answers a request that arrived while closing: 503 with `Connection: close`, once its body is read. */
  refuse(ctx: Context, fail: (ctx: Context, error: unknown) => void): void {
    const { req, res } = ctx;
    res.setHeader('connection', 'close');
    const refuse = (): void => fail(ctx, new HTTPError(503, 'Server is shutting down'));
    // Read the body first: closing a socket with unread data makes the kernel send a reset,
    // which can destroy the 503 before the client reads it.
    if (hasBody(req) && !req.complete) {
      let refused = false;
      const once = (): void => {
        if (refused) return;
        refused = true;
        refuse();
      };
      req.once('end', once).once('error', once).resume();
    } else refuse();
  }

  /** Binds `handler` on `port`/`host`, then runs the listen hooks (closing again if one throws). */
  async listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string | undefined): Promise<ListenInfo> {
    if (this.server !== undefined) throw new Error('listen() was already called on this application');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`Invalid port: ${String(port)}`);
    const { timeouts, log } = this.settings;
    const server = createServer(
      {
        requestTimeout: timeouts.request,
        // The headers are part of the request: node refuses a header time-out longer than the request's.
        headersTimeout: Math.min(timeouts.headers, timeouts.request),
        keepAliveTimeout: timeouts.keepAlive,
        // Node checks the two time-outs above on this interval (30 s by default).
        connectionsCheckingInterval: Math.min(1000, timeouts.headers, timeouts.request),
      },
      handler,
    );
    this.server = server;
    this.closing = false;
    // Without a listener node serves an upgrade request as a plain request, which is what an app
    // whose plugins take no upgrades wants.
    if (this.settings.takesUpgrades()) {
      const upgraded = this.#upgraded;
      const upgrade = this.settings.upgrade;
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        upgraded.add(socket);
        socket.once('close', () => upgraded.delete(socket));
        upgrade(req, socket, head);
      });
    }
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
    server.on('error', (err) => log('HTTP server error', err));
    if (this.settings.logUnhandledRejections && this.#stopRejectionLog === undefined) {
      this.#stopRejectionLog = reportUnhandledRejections((reason) => log('Unhandled promise rejection (the server keeps running)', reason));
    }
    const address = server.address() as AddressInfo;
    // The address really bound: a wildcard one (`::`, `0.0.0.0`) says every interface is.
    const shownHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
    const url = `http://${shownHost}:${address.port}`;
    // `http://[::]:3000` is what was bound, not where a browser can go: localhost reaches every interface.
    const localUrl = address.address === '::' || address.address === '0.0.0.0' ? `http://localhost:${address.port}` : url;
    const info: ListenInfo = { port: address.port, host: address.address, url, localUrl };
    try {
      for (const hook of this.settings.listenHooks) await hook(info);
    } catch (err) {
      await this.close().catch(() => undefined);
      throw err;
    }
    return info;
  }

  /** Drains and closes; the same promise for calls made while closing. */
  close(): Promise<void> {
    this.#closePromise ??= this.#shutdown();
    return this.#closePromise;
  }

  async #shutdown(): Promise<void> {
    this.closing = true;
    const { closeTimeout, closeHooks, closedHooks, log } = this.settings;
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
          }, Math.min(IDLE_GRACE_MS, closeTimeout));
          const force = setTimeout(() => {
            server.closeAllConnections();
            // An upgraded connection its plugin did not end by now is cut too: the server's own
            // close waits for it, and nothing else would end it.
            for (const socket of this.#upgraded) socket.destroy();
          }, closeTimeout);
          timers = [grace, force];
          for (const timer of timers) timer.unref();
        });
    const results = await Promise.allSettled([drained, ...closeHooks.map(async (hook) => hook())]);
    for (const timer of timers) clearTimeout(timer);
    const closedResults = await Promise.allSettled(closedHooks.map(async (hook) => hook()));
    for (const result of [...results, ...closedResults]) if (result.status === 'rejected') log('Error while closing', result.reason);
    this.#stopRejectionLog?.();
    this.#stopRejectionLog = undefined;
    this.server = undefined;
    this.#closePromise = undefined;
  }
}
