import { RESOLVED } from './internal/resolved.js';
import type { Middleware, Next } from './types.js';

/** A composed chain: runs its middleware in order, then `next` if given. */
export type ComposedMiddleware<C> = (ctx: C, next?: Next) => Promise<void>;

/** The promise to wait for when a middleware returned no native promise: a thenable's, or none. */
function settle(result: unknown): Promise<void> {
  if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
    return Promise.resolve(result as PromiseLike<void>);
  }
  return RESOLVED;
}

/**
 * Composes middleware with Koa semantics: each one gets `next`, work after `await next()`
 * runs after the inner chain, not calling `next` stops there, and calling `next` twice in the
 * same middleware rejects. Non-functions are rejected when composing, not when a request comes.
 * @example
 * const run = compose([async (ctx, next) => { await next(); }, (ctx) => ctx.text('hi')]);
 */
export function compose<C>(middleware: ReadonlyArray<Middleware<C>>): ComposedMiddleware<C> {
  // Kept typed: Array.isArray narrows a readonly array to any[].
  const given: ReadonlyArray<Middleware<C>> = middleware;
  if (!Array.isArray(middleware)) throw new TypeError('compose expects an array of middleware functions');
  middleware.forEach((fn, i) => {
    if (typeof fn !== 'function') throw new TypeError(`Middleware at position ${i} must be a function, got ${fn === null ? 'null' : typeof fn}`);
  });
  const stack = given.slice();
  const length = stack.length;

  if (length === 0) return (_ctx, next) => (next ? next() : RESOLVED);

  if (length === 1) {
    // One handler (the common route): no dispatcher, just a guard so that a second `next()`
    // still rejects as the Koa rule says.
    const only = stack[0]!;
    return (ctx, next) => {
      let called = false;
      const guarded: Next = () => {
        if (called) return Promise.reject(new Error('next() called multiple times in one middleware'));
        called = true;
        return next ? next() : RESOLVED;
      };
      try {
        const result = only(ctx, guarded);
        return result instanceof Promise ? (result as Promise<void>) : settle(result);
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
        return Promise.reject(err);
      }
    };
  }

  return (ctx, next) => {
    let index = -1;
    const dispatch = (i: number): Promise<void> => {
      if (i <= index) return Promise.reject(new Error('next() called multiple times in one middleware'));
      index = i;
      const fn = i === length ? next : stack[i];
      if (fn === undefined) return RESOLVED;
      try {
        const result = fn(ctx, () => dispatch(i + 1));
        return result instanceof Promise ? (result as Promise<void>) : settle(result);
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
        return Promise.reject(err);
      }
    };
    return dispatch(0);
  };
}
