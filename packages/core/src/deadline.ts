import { ERROR_CODE_STATUS } from './error-code.js';
import { HTTPError } from './http-error.js';
import type { RequestContext } from './request-context.js';
import { scopedView } from './stream-scope.js';

/**
 * Deadlines, one implementation for every transport: a REST route's or an operation's `timeout`,
 * the app's default, and the deadline a client sends with a remote procedure call all become one absolute time, `ctx.deadline`, behind `ctx.signal`. When it passes, the call ends
 * with `deadline_exceeded` (504 on HTTP by `ERROR_CODE_STATUS`, each protocol's column elsewhere).
 *
 * Each deadline is one node timer, cleared when the call settles. Node keeps the timers of one
 * duration in one list behind a single native timer, so this is an O(1) append and removal; the
 * stream pump's shared clock ticks at a period and would round every deadline up to it.
 */

/** The longest delay a node timer takes (about 24.8 days); a longer timeout is no deadline at all in practice. */
const MAX_TIMER = 2_147_483_647;

/** The error a call whose deadline passed ends with: `deadline_exceeded`, 504 on HTTP. */
export function deadlineExceeded(timeoutMs: number): HTTPError {
  return new HTTPError(ERROR_CODE_STATUS.deadline_exceeded, `The deadline of ${Math.round(timeoutMs)} ms passed`, undefined, { code: 'deadline_exceeded' });
}

/**
 * The milliseconds left until `ctx.deadline`: 0 once it has passed, `Infinity` when the call has
 * none. What a handler passes on to the calls it makes (`{ deadline: ctx.deadline }` for an RPC
 * client, `AbortSignal.timeout(timeRemaining(ctx))` for fetch).
 * @example
 * const res = await fetch(url, { signal: AbortSignal.timeout(Math.min(timeRemaining(ctx), 5000)) });
 */
export function timeRemaining(ctx: Pick<RequestContext, 'deadline'>): number {
  const at = ctx.deadline;
  return at === undefined ? Infinity : Math.max(0, at - Date.now());
}

/** Checks a `timeout` option: milliseconds, 0 for none (over a default), or undefined (not set). */
export function checkTimeout(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new TypeError(`${name} must be a number of milliseconds (0 for none), got ${typeof value === 'number' ? String(value) : typeof value}`);
  }
  return Math.min(value, MAX_TIMER);
}

/**
 * Calls `expire` with the `deadline_exceeded` error when `at` (epoch ms) comes; returns what
 * clears it. For a transport whose call does not end by a rejection (a stream that ends with
 * trailers): most use `raceDeadline` or `withDeadline`. `timeoutMs` is the budget the message names.
 */
export function armDeadline(at: number, timeoutMs: number, expire: (reason: HTTPError) => void): () => void {
  const timer = setTimeout(() => expire(deadlineExceeded(timeoutMs)), Math.max(0, at - Date.now()));
  return () => clearTimeout(timer);
}

/**
 * Settles as `running` does, unless `at` (epoch ms) comes first: then `expire` is told the
 * `deadline_exceeded` error (to abort the call's signal) and the promise rejects with it, unless
 * `met` says the call has answered in time already (a stream that began). The timer is cleared as
 * soon as `running` settles.
 */
export function raceDeadline<T>(running: Promise<T>, at: number, timeoutMs: number, expire: (reason: HTTPError) => void, met?: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const clear = armDeadline(at, timeoutMs, (reason) => {
      // The caller's answer has begun (a stream): the deadline was met, the call goes on.
      if (met?.() === true) return;
      try {
        expire(reason);
      } finally {
        reject(reason);
      }
    });
    running.then(
      (value) => {
        clear();
        resolve(value);
      },
      (err: unknown) => {
        clear();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what the call threw, as thrown
        reject(err);
      },
    );
  });
}

/**
 * Runs `run` with a deadline `timeoutMs` from now, unless `ctx` already has one as early: `run`
 * gets a view of `ctx` (the same context, reads and writes reach it) whose `deadline` is the
 * earlier of the two and whose `signal` also aborts, with the `deadline_exceeded` error, when it
 * passes; the promise then rejects with that error, whatever `run` still does. A view, not a change
 * to `ctx`, because calls that share a context (the fields of one query document) each have their own.
 * @example
 * return withDeadline(ctx, 200, (scoped) => runOperation(op, scoped, input));
 */
export function withDeadline<C extends RequestContext, T>(ctx: C, timeoutMs: number, run: (ctx: C) => Promise<T>): Promise<T> {
  const now = Date.now();
  const at = now + timeoutMs;
  const current = ctx.deadline;
  // An earlier deadline is enforced by whoever set it (the route, the client's library).
  if (current !== undefined && current <= at) return run(ctx);
  const controller = new AbortController();
  let running: Promise<T>;
  try {
    running = run(scopedView(ctx, controller.signal, at));
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
    return Promise.reject(err);
  }
  return raceDeadline(running, at, timeoutMs, (reason) => controller.abort(reason));
}
