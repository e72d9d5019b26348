import { RESOLVED } from './internal/resolved.js';
import type { Middleware, Next } from './types.js';

/**
 * A composed chain: runs its middleware in order, then `next` if given (called as any middleware
 * is, with the context and a `next` of its own). Resolves to what the first middleware returned;
 * `R` says what that is (`void` unless given).
 */
export type ComposedMiddleware<C, R = void> = (ctx: C, next?: Middleware<C>) => Promise<R>;

/** The `next` handed to the outer next: the end of the chain. */
const END: Next = () => RESOLVED;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function')
  );
}

/** The promise for what a middleware returned: a promise as it is, a thenable followed, a value resolved. */
function settle(result: unknown): Promise<unknown> {
  if (result instanceof Promise) return result;
  if (result === undefined) return RESOLVED;
  return Promise.resolve(result);
}

function multiple(): Promise<never> {
  return Promise.reject(new Error('next() called multiple times in one middleware'));
}

/** Calls one middleware and gives the promise for its result; what it throws becomes a rejection. */
function call<C>(fn: Middleware<C>, ctx: C, next: Next): Promise<unknown> {
  try {
    return settle(fn(ctx, next));
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
    return Promise.reject(err);
  }
}

/**
 * Composes middleware with Koa semantics (koa-compose): each one gets `next`, work after
 * `await next()` runs after the inner chain, not calling `next` stops there, and calling `next`
 * twice in the same middleware rejects. The chain resolves to what the first middleware returned,
 * and `await next()` to what the next one returned. Middleware come as arguments or lists (flattened
 * one level); non-functions are rejected when composing, not when a request comes.
 *
 * Outside production (`NODE_ENV !== 'production'` when composing), a middleware that settles
 * before the `next()` it called has settled (a forgotten `await` or `return`) rejects with an
 * error naming its position. In production that check costs nothing: it is not there.
 * @example
 * const run = compose([async (ctx, next) => { await next(); }, (ctx) => ctx.text('hi')]);
 */
export function compose<C, R = void>(...middleware: ReadonlyArray<Middleware<C> | ReadonlyArray<Middleware<C>>>): ComposedMiddleware<C, R> {
  const stack: Middleware<C>[] = [];
  for (const entry of middleware as readonly unknown[]) {
    if (Array.isArray(entry)) stack.push(...(entry as Middleware<C>[]));
    else stack.push(entry as Middleware<C>);
  }
  stack.forEach((fn: unknown, i) => {
    if (typeof fn !== 'function') throw new TypeError(`Middleware at position ${i} must be a function, got ${fn === null ? 'null' : typeof fn}`);
  });
  const chain = process.env.NODE_ENV === 'production' ? slim(stack) : checked(stack);
  return chain as ComposedMiddleware<C, R>;
}

/** The production chain: no bookkeeping beyond the Koa rules. */
function slim<C>(stack: readonly Middleware<C>[]): ComposedMiddleware<C, unknown> {
  const length = stack.length;

  if (length === 0) {
    return (ctx, next) => (next === undefined ? RESOLVED : call(next, ctx, END));
  }

  if (length === 1) {
    // One handler (the common route): no dispatcher, just a guard so that a second `next()`
    // still rejects as the Koa rule says.
    const only = stack[0]!;
    return (ctx, next) => {
      let called = false;
      const guarded: Next = () => {
        if (called) return multiple();
        called = true;
        return next === undefined ? RESOLVED : (call(next, ctx, END) as Promise<void>);
      };
      return call(only, ctx, guarded);
    };
  }

  return (ctx, next) => {
    let index = -1;
    const dispatch = (i: number): Promise<unknown> => {
      if (i <= index) return multiple();
      index = i;
      const fn = i === length ? next : stack[i];
      if (fn === undefined) return RESOLVED;
      return call(fn, ctx, () => dispatch(i + 1) as Promise<void>);
    };
    return dispatch(0);
  };
}

/** What is said when a middleware settled before its `next()` did. */
function disconnected(who: string): Error {
  return new Error(
    // "resolved before downstream" is koa-compose's wording, which programs and tests may look for.
    `${who} resolved before downstream: it settled before the next() it called had settled, a disconnected ` +
      'promise chain. Write `await next()` or `return next()`, so that the chain waits for the middleware after it.',
  );
}

function describeMiddleware(fn: unknown, i: number, length: number): string {
  if (i === length) return 'The next passed to the composed middleware';
  const name = typeof fn === 'function' ? fn.name : '';
  return name === '' ? `Middleware at position ${i}` : `Middleware at position ${i} (${name})`;
}

/**
 * The chain outside production: as `slim`, and each middleware's `next()` is watched, so that one
 * that settles while the chain after it is still running (a forgotten `await` or `return`) rejects.
 */
function checked<C>(stack: readonly Middleware<C>[]): ComposedMiddleware<C, unknown> {
  const length = stack.length;
  return (ctx, next) => {
    // Whether the dispatch that returned last finished synchronously, with a value or nothing.
    let synchronous = false;
    const dispatch = (i: number): Promise<unknown> => {
      const fn = i === length ? next : i > length ? undefined : stack[i];
      synchronous = true;
      if (fn === undefined) return RESOLVED;
      let called = false;
      let settled = false;
      const watched: Next = () => {
        if (called) return multiple();
        called = true;
        const inner = dispatch(i + 1);
        // Finished synchronously: nothing left to wait for.
        if (synchronous) {
          settled = true;
          return inner as Promise<void>;
        }
        // Registered before the middleware can wait on `inner`, so it runs first.
        return inner.then(
          (value) => {
            settled = true;
            return value;
          },
          (err: unknown) => {
            settled = true;
            throw err;
          },
        ) as Promise<void>;
      };
      let result: unknown;
      try {
        result = fn(ctx, watched);
      } catch (err) {
        synchronous = false;
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
        return Promise.reject(err);
      }
      if (!isThenable(result)) {
        if (called && !settled) {
          synchronous = false;
          return Promise.reject(disconnected(describeMiddleware(fn, i, length)));
        }
        synchronous = true;
        return result === undefined ? RESOLVED : Promise.resolve(result);
      }
      synchronous = false;
      return Promise.resolve(result).then((value) => {
        if (called && !settled) throw disconnected(describeMiddleware(fn, i, length));
        return value;
      });
    };
    return dispatch(0);
  };
}
