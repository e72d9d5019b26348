import { CLIENT_CLOSED_REQUEST, isClientGone } from './client-gone.js';
import { isServerFault } from './server-fault.js';
import type { Context } from './context.js';
import type { HTTPError} from './http-error.js';
import { errorBody, toHTTPError } from './http-error.js';
import type { LogFunction } from './internal/logging.js';
import { FLUSH, RAW_IN_USE, RESET_RESPONSE, UNANSWERED } from './internal/symbols.js';
import type { ResponseHook } from './plugin-host.js';
import { isLastRequest } from './server.js';
import type { Route } from './types.js';

/** Handles an error: receives it as an HTTPError (the original is its `cause`) and answers through ctx. */
export type ErrorHandler = (error: HTTPError, ctx: Context) => unknown;

/** The answer of last resort, when even the error answer could not be written. */
const INTERNAL_TEXT = JSON.stringify({ error: true, message: 'Internal Server Error', code: 500 });

/**
 * Writes what a request's chain decided, or answers what it threw: through the custom error
 * handler if there is one, else the default body `{ error: true, message, code, details? }`.
 * Never throws. Every request ends in exactly one of its terminal paths, each of which tells the
 * response hooks the status that was sent.
 */
export class Responder {
  /** The custom error handler (`app.onError`), if any. */
  errorHandler: ErrorHandler | undefined = undefined;

  /** The routes already warned about for answering nothing; undefined when that warning is off (production). */
  readonly #silentRoutes: WeakSet<Route> | undefined;

  constructor(
    private readonly log: LogFunction,
    private readonly isClosing: () => boolean,
    private readonly hooks: readonly ResponseHook[],
    /** Warn, once per route, when a matched route's chain answered nothing (the standard 404 went out). */
    warnSilentRoutes = false,
  ) {
    this.#silentRoutes = warnSilentRoutes ? new WeakSet() : undefined;
  }

  /** Writes what the chain recorded; a failure while writing is answered as an error. */
  readonly finish = (ctx: Context): void => {
    this.#write(ctx, this.fail);
    // Off in production: no work per request there.
    if (this.#silentRoutes !== undefined && ctx.route !== undefined && ctx[UNANSWERED]()) this.#warnSilent(ctx.route);
  };

  /**
   * A route matched but nothing answered, so the client got a 404 that looks like a missing route:
   * say which route it was, once, so the missing `ctx.json()` is found without a debugger.
   */
  #warnSilent(route: Route): void {
    const warned = this.#silentRoutes!;
    if (warned.has(route)) return;
    warned.add(route);
    this.log(
      `${route.method} ${route.path} matched, but its handler sent nothing, so it answered 404 Not Found: ` +
        'answer with ctx.json(), ctx.text() or ctx.status() (or throw an HTTPError). ' +
        'Said once per route, and only when NODE_ENV is not "production"',
    );
  }

  /** Answers a thrown value. Never throws. */
  readonly fail = (ctx: Context, thrown: unknown): void => {
    try {
      this.#answerError(ctx, thrown);
    } catch (failure) {
      this.#lastResort(ctx, failure);
    }
  };

  #write(ctx: Context, onFailure: (ctx: Context, err: unknown) => void): void {
    try {
      if (this.isClosing() && !ctx.res.headersSent) this.#closeAfter(ctx);
      ctx[FLUSH]();
    } catch (err) {
      onFailure(ctx, err);
      return;
    }
    this.#answered(ctx);
  }

  #answerError(ctx: Context, thrown: unknown): void {
    // The client cancelled or left: no one to answer, and not the server's fault (no log, no
    // error handler). The hooks are told 499, so it is not counted as a server error either.
    if (isClientGone(thrown, ctx)) {
      this.#clientGone(ctx);
      return;
    }
    const error = toHTTPError(thrown);
    if (isServerFault(error)) this.log(`Error on ${ctx.method} ${ctx.path}`, thrown);
    if (ctx[RAW_IN_USE]()) {
      // The response is already on the wire: all that is left is to cut it short.
      if (!ctx.res.writableEnded) ctx.res.destroy();
      this.#answered(ctx);
      return;
    }
    const handler = this.errorHandler;
    if (handler === undefined) {
      this.#sendError(ctx, error);
      return;
    }
    // The custom handler starts from a clean response carrying the error's own headers.
    let result: unknown;
    try {
      this.#prepareError(ctx, error);
      result = handler(error, ctx);
    } catch (err) {
      this.#handlerFailed(ctx, err);
      return;
    }
    const done = (): void => {
      try {
        if (ctx.responded) this.#write(ctx, this.#handlerFailed);
        else this.#sendError(ctx, error);
      } catch (failure) {
        this.#lastResort(ctx, failure);
      }
    };
    if (result instanceof Promise) result.then(done, (err: unknown) => this.#handlerFailed(ctx, err));
    else done();
  }

  /** The custom error handler threw (or its answer could not be written): the default answer for that failure. */
  readonly #handlerFailed = (ctx: Context, err: unknown): void => {
    try {
      this.log('The error handler threw', err);
      if (!ctx[RAW_IN_USE]()) {
        this.#sendError(ctx, toHTTPError(err));
        return;
      }
      if (!ctx.res.writableEnded) ctx.res.destroy();
    } catch (failure) {
      this.#lastResort(ctx, failure);
      return;
    }
    this.#answered(ctx);
  };

  /** Sends the default error body `{ error: true, message, code, details? }`. */
  #sendError(ctx: Context, error: HTTPError): void {
    if (!ctx[RAW_IN_USE]()) {
      try {
        this.#prepareError(ctx, error);
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
        ctx[FLUSH]();
      } catch (err) {
        this.#lastResort(ctx, err);
        return;
      }
    }
    this.#answered(ctx);
  }

  /**
   * Answers a plain 500 when the error answer itself failed (a thrown value whose getters throw
   * halfway through): written directly, so nothing of the failed answer can fail it again. Once the
   * response has started, the connection is cut instead.
   */
  #lastResort(ctx: Context, failure: unknown): void {
    const res = ctx.res;
    let written = false;
    try {
      this.log('Could not send the error response', failure);
      if (!res.headersSent && !res.writableEnded) {
        ctx[RESET_RESPONSE]();
        res.removeHeader('content-type');
        res.removeHeader('content-length');
        if (this.isClosing()) res.setHeader('connection', 'close');
        res.writeHead(500, ['content-type', 'application/json; charset=utf-8', 'content-length', String(INTERNAL_TEXT.length)]);
        res.end(ctx.method === 'HEAD' ? undefined : INTERNAL_TEXT);
        written = true;
      }
    } catch {
      // Fall through to cutting the connection.
    }
    if (!written) {
      try {
        if (!res.writableEnded) res.destroy();
      } catch {
        // Nothing more can be done for this response.
      }
    }
    this.#answered(ctx);
  }

  /** Clears what the chain recorded and sets the error's headers. */
  #prepareError(ctx: Context, error: HTTPError): void {
    const res = ctx.res;
    ctx[RESET_RESPONSE]();
    res.removeHeader('content-type');
    res.removeHeader('content-length');
    if (error.headers !== undefined) for (const [key, value] of Object.entries(error.headers)) res.setHeader(key, value);
    if (this.isClosing()) this.#closeAfter(ctx);
  }

  /** While draining, marks the response `Connection: close` when it answers the last request read from its connection. */
  #closeAfter(ctx: Context): void {
    if (isLastRequest(ctx.req)) ctx.res.setHeader('connection', 'close');
  }

  /** Ends a request whose client is gone: recorded as 499 (nothing is sent), the response closed. */
  #clientGone(ctx: Context): void {
    try {
      if (!ctx[RAW_IN_USE]()) {
        ctx[RESET_RESPONSE]();
        ctx.status(CLIENT_CLOSED_REQUEST);
      }
      if (!ctx.res.writableEnded) ctx.res.destroy();
    } catch {
      // The response is gone already: nothing more to close.
    }
    this.#answered(ctx);
  }

  /** Tells the response hooks the status sent. No hook, no work. */
  #answered(ctx: Context): void {
    if (this.hooks.length === 0) return;
    tellResponseHooks(this.hooks, this.log, ctx, ctx.res.statusCode);
  }
}

/**
 * Tells each response hook that `ctx` was answered with `status`; a hook that throws is logged and
 * the others still run. The responder's terminal paths and `host.answered()` (a context a plugin
 * made outside the HTTP pipeline) both end here.
 */
export function tellResponseHooks(hooks: readonly ResponseHook[], log: LogFunction, ctx: Context, status: number): void {
  for (const hook of hooks) {
    try {
      hook(ctx, status);
    } catch (err) {
      log('An onResponse hook threw', err);
    }
  }
}
