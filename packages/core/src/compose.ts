import type { Middleware, Next } from './types.js';

/** A composed chain: runs its middleware in order, then `next` if given. */
export type ComposedMiddleware<C> = (ctx: C, next?: Next) => Promise<void>;

const RESOLVED: Promise<void> = Promise.resolve();
const noop: Next = () => RESOLVED;

/**
 * Composes middleware with Koa semantics: each one gets `next`, work after `await next()`
 * runs after the inner chain, not calling `next` stops there, and calling `next` twice in the
 * same middleware rejects. Non-functions are rejected when composing, not when a request comes.
 * @example
 * const run = compose([async (ctx, next) => { await next(); }, (ctx) => ctx.text('hi')]);
 */
export function compose<C>(middleware: ReadonlyArray<Middleware<C>>): ComposedMiddleware<C> {
  if (!Array.isArray(middleware)) throw new TypeError('compose expects an array of middleware functions');
  middleware.forEach((fn, i) => {
    if (typeof fn !== 'function') throw new TypeError(`Middleware at position ${i} must be a function, got ${fn === null ? 'null' : typeof fn}`);
  });
  const stack = middleware.slice();
  const length = stack.length;

  if (length === 0) return (_ctx, next) => (next ? next() : RESOLVED);

  if (length === 1) {
    // One handler: no dispatcher needed. A second `next()` call only re-runs the outer `next`
    // guard, so the double-call check still holds there.
    const only = stack[0]!;
    return (ctx, next) => {
      try {
        const result = only(ctx, next ?? noop);
        return result instanceof Promise ? (result as Promise<void>) : RESOLVED;
      } catch (err) {
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
        return result instanceof Promise ? (result as Promise<void>) : RESOLVED;
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return dispatch(0);
  };
}
