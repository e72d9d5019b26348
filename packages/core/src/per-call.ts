import { compose, type ComposedMiddleware } from './compose.js';
import { HTTPError } from './http-error.js';
import { RESOLVED } from './internal/resolved.js';
import type { RequestContext } from './request-context.js';
import type { AnyMiddleware, Middleware } from './types.js';

/** Middleware that admits each call rather than each connection carries `true` under this key (set by `rateLimit()`); attach it with `markPerCall`. */
export const PER_CALL: unique symbol = Symbol.for('fw.perCall');

/**
 * Marks a middleware as admitting calls (a rate limit counts each one) and returns the same
 * function. On HTTP nothing changes: it runs once per request, in its place among the global
 * middleware. A transport that carries many calls on one connection (a WebSocket) runs it for each
 * call instead (`host.perCall(ctx)`), and not when the connection opens (`host.connectionMiddleware()`).
 * @example
 * app.use(markPerCall(async (ctx, next) => { await quota.take(ctx.ip); await next(); }));
 */
export function markPerCall<F extends (...args: never[]) => unknown>(middleware: F): F {
  if (typeof middleware !== 'function') throw new TypeError('markPerCall expects a middleware function');
  return Object.assign(middleware, { [PER_CALL]: true });
}

/** Whether a middleware is marked to run per call (`markPerCall`). */
export function isPerCall(middleware: unknown): boolean {
  return (middleware as { [PER_CALL]?: unknown } | null)?.[PER_CALL] === true;
}

/** @internal What the host's `connectionMiddleware` and `perCall` are made of. */
export interface PerCallAdmission {
  /** The global middleware without those marked per call, in order; the same frozen list until the next `use()`. */
  connection(): readonly AnyMiddleware[];
  /** Runs the global middleware marked per call on `ctx`, in order, for one call. */
  run(ctx: RequestContext): Promise<void>;
}

/** @internal Splits `middleware()` (read on each call, recomputed when the list changes) into its connection and per-call parts. */
export function createPerCallAdmission(middleware: () => readonly AnyMiddleware[]): PerCallAdmission {
  let listed: readonly AnyMiddleware[] | undefined;
  let connection: readonly AnyMiddleware[] = Object.freeze([]);
  let chain: ComposedMiddleware<RequestContext> | undefined;
  const refresh = (): void => {
    const list = middleware();
    if (list === listed) return;
    listed = list;
    const perCall = list.filter(isPerCall);
    connection = perCall.length === 0 ? list : Object.freeze(list.filter((mw) => !isPerCall(mw)));
    // Typed on HTTP's Context by `use()`; middleware that marks itself per call reads only what every context has.
    chain = perCall.length === 0 ? undefined : compose<RequestContext>(perCall as unknown as ReadonlyArray<Middleware<RequestContext>>);
  };
  return {
    connection() {
      refresh();
      return connection;
    },
    run(ctx) {
      refresh();
      if (chain === undefined) return RESOLVED;
      let passed = false;
      const pass = (): Promise<void> => {
        passed = true;
        return RESOLVED;
      };
      return chain(ctx, pass).then(() => {
        // One that answered by itself without calling next() refused the call, with the status it set.
        if (!passed) throw new HTTPError(ctx.statusCode >= 400 ? ctx.statusCode : 403);
      });
    },
  };
}
