import type { RequestContext } from './request-context.js';

/**
 * A view of `ctx` for one of several streams that share it (subscriptions multiplexed on one
 * connection): the same context in every respect — reads, writes and methods reach `ctx` itself —
 * except that its `signal` also aborts when `signal` does. A transport ends one stream by aborting
 * `signal`: its handler, waiting for an event with `ctx.signal`, stops waiting and runs its
 * `finally`, while the connection and its other streams go on. With `deadline` (epoch ms, earlier
 * than the context's), the view's `deadline` is it: the transport that gave it enforces it.
 */
export function withStreamSignal<C extends RequestContext>(ctx: C, signal: AbortSignal, deadline?: number): C {
  return scopedView(ctx, signal, deadline !== undefined && (ctx.deadline === undefined || deadline < ctx.deadline) ? deadline : undefined);
}

/**
 * @internal The view behind `withStreamSignal` and `withDeadline`: `signal` aborts with either
 * signal, and `deadline` (with `timeRemaining()`) is `deadline` when given.
 */
export function scopedView<C extends RequestContext>(ctx: C, signal: AbortSignal, deadline: number | undefined): C {
  const scoped = AbortSignal.any([ctx.signal, signal]);
  const remaining = (): number => (deadline === undefined ? Infinity : Math.max(0, deadline - Date.now()));
  // Methods run on the context itself, so its private state is theirs; each is bound once.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(ctx, {
    get(target, key) {
      if (key === 'signal') return scoped;
      if (deadline !== undefined) {
        if (key === 'deadline') return deadline;
        if (key === 'timeRemaining') return remaining;
      }
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || key === 'constructor') return value;
      let method = bound.get(key);
      if (method === undefined || (method as { target?: unknown }).target !== value) {
        const fn = value as (...args: unknown[]) => unknown;
        method = Object.assign((...args: unknown[]) => fn.apply(target, args), { target: value });
        bound.set(key, method);
      }
      return method;
    },
    set: (target, key, value) => Reflect.set(target, key, value, target),
  });
}
