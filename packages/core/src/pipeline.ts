import { compose, type ComposedMiddleware } from './compose.js';
import type { Context } from './context.js';
import { HTTPError } from './http-error.js';
import { RESOLVED } from './internal/resolved.js';
import { raceDeadline } from './deadline.js';
import { ABORT, ALLOWED_METHODS, AROUND, MATCH, NEEDS_BODY, NOT_FOUND, RAW_IN_USE, SET_DEADLINE } from './internal/symbols.js';
import { settling, type Router } from './router.js';
import type { AnyMiddleware, Middleware } from './types.js';

/** A path a plugin claimed: its handler, the protocol it serves, its guard, and its chain once composed. */
interface Claim {
  readonly handler: ComposedMiddleware<Context>;
  readonly protocol: string;
  /** Runs around the global middleware for this path only (`claimPath`'s `guard`). */
  readonly guard: AnyMiddleware | undefined;
  chain: ComposedMiddleware<Context> | undefined;
}

const NONE: readonly AnyMiddleware[] = Object.freeze([]);

/**
 * What runs for one HTTP request: the wrappers, the global middleware, then the claimed path's
 * handler or the route table, then "nothing answered" as a 404. After the chain, `ctx.statusCode`
 * is the status that will be sent (unless something threw, which the responder answers). It owns
 * the wrappers, the global middleware and the not-found answer: the application and the plugin
 * host change them only through its methods.
 */
export class Pipeline {
  readonly #router: Router;
  readonly #methodNotAllowed: boolean;
  /** Middleware that runs outside all global middleware (`wrap`), outermost first: around HTTP requests. */
  #wrappers: readonly AnyMiddleware[] = NONE;
  /** Every wrapper, those added with `{ http: false }` included, in the order added: what other protocols run around their calls. */
  #callWrappers: readonly AnyMiddleware[] = NONE;
  /** The global middleware (`app.use`), run for every request, matched or not. */
  #middleware: readonly AnyMiddleware[] = NONE;
  /** The answer for requests no route matches (`app.notFound`); the standard 404 when undefined. */
  #notFound: ComposedMiddleware<Context> | undefined = undefined;
  readonly #claims = new Map<string, Claim>();
  /** The chain of every request no plugin claimed, composed on the first request after a change. */
  #chain: ComposedMiddleware<Context> | undefined = undefined;

  /** The app's default route deadline (`timeout`), ms; undefined for none. */
  readonly #timeout: number | undefined;

  constructor(router: Router, methodNotAllowed: boolean, timeout?: number) {
    this.#router = router;
    this.#methodNotAllowed = methodNotAllowed;
    this.#timeout = timeout;
  }

  /**
   * Adds global middleware. The lists are replaced, never changed in place, so each stays the same
   * frozen object until the next `use`: a plugin that runs them for another protocol tells
   * "unchanged" by identity, per call. The router is told, for the schema and meta of its records.
   */
  use(middleware: AnyMiddleware): void {
    this.#middleware = Object.freeze([...this.#middleware, middleware]);
    this.#changed();
    this.#router[AROUND](this.#middleware);
  }

  /** Adds a wrapper, inside those added before it; `http: false` leaves it out of HTTP requests' chain. */
  wrap(middleware: AnyMiddleware, http = true): void {
    this.#callWrappers = Object.freeze([...this.#callWrappers, middleware]);
    if (!http) return;
    this.#wrappers = Object.freeze([...this.#wrappers, middleware]);
    this.#changed();
  }

  /** The global middleware, a frozen list that stays the same object until the next `use`. */
  middleware(): readonly AnyMiddleware[] {
    return this.#middleware;
  }

  /** Every wrapper (for the calls of other protocols), a frozen list that stays the same object until the next `wrap`. */
  wrappers(): readonly AnyMiddleware[] {
    return this.#callWrappers;
  }

  /** Answers requests no route matches with `handler` instead of the standard 404. */
  notFound(handler: Middleware): void {
    this.#notFound = compose([handler]);
  }

  /**
   * Answers every request to exactly `path` with `handler`, after the global middleware; `guard`,
   * when given, runs around that middleware (inside the wrappers) for this path only.
   */
  claim(path: string, handler: AnyMiddleware, protocol: string, guard?: AnyMiddleware): void {
    if (this.#claims.has(path)) throw new Error(`Path "${path}" is already claimed by a plugin`);
    this.#claims.set(path, { handler: compose<Context>([handler as Middleware<Context>]), protocol, guard, chain: undefined });
  }

  /** Runs the request through the whole chain. */
  run(ctx: Context): Promise<void> {
    if (this.#claims.size !== 0) {
      const claim = this.#claims.get(ctx.path);
      if (claim !== undefined) {
        // Said from the start of the request, so the global middleware sees it too.
        ctx.protocol = claim.protocol;
        return (claim.chain ??= this.#compose((claimed: Context) => claim.handler(claimed), claim.guard))(ctx);
      }
    }
    return (this.#chain ??= this.#compose(this.#route))(ctx);
  }

  /** Forgets the composed chains after `use` or `wrap`; the next request composes them again. */
  #changed(): void {
    this.#chain = undefined;
    for (const claim of this.#claims.values()) claim.chain = undefined;
  }

  /** The wrappers, a claimed path's guard and the global middleware around `stage` (the route table, or a claimed path's handler). */
  #compose(stage: (ctx: Context) => Promise<void>, guard?: AnyMiddleware): ComposedMiddleware<Context> {
    const chain = (guard === undefined ? [...this.#wrappers, ...this.#middleware] : [...this.#wrappers, guard, ...this.#middleware]) as Array<Middleware<Context>>;
    if (chain.length === 0) return stage;
    // With middleware around it, a request nobody answered is given its 404 here, so that the
    // middleware reads `ctx.statusCode === 404` after `await next()` (a logger logs 404s).
    // Without any, the responder writes the same 404 and no promise is added per request.
    return compose<Context>([...chain, settling(stage)]);
  }

  /** The matched route's chain, else the answer for a path no route has. */
  readonly #route = (ctx: Context): Promise<void> => {
    const path = ctx.path;
    const found = this.#router[MATCH](ctx.method, path);
    if (found === null) return this.#missing(ctx, path);
    if (found.value.dynamic) ctx.params = found.params;
    const route = found.value.route;
    ctx.route = route;
    const timeout = route.timeout ?? this.#timeout;
    if (timeout !== undefined && timeout !== 0) return underDeadline(ctx, found.value.chain, timeout);
    if (ctx[NEEDS_BODY]) return ctx.parseBody().then(() => found.value.chain(ctx));
    return found.value.chain(ctx);
  };

  /** No route for this method and path: 405 (or the OPTIONS answer) when other methods have one, else not found. */
  #missing(ctx: Context, path: string): Promise<void> {
    if (this.#methodNotAllowed) {
      const allowed = this.#router[ALLOWED_METHODS](path);
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
    if (this.#notFound !== undefined) return this.#notFound(ctx);
    ctx[NOT_FOUND]();
    return RESOLVED;
  }
}

/**
 * A route's chain (its body read included) under its deadline: `ctx.deadline` is set, and when it
 * passes `ctx.signal` aborts and the request fails with `deadline_exceeded` (504), whatever the
 * handler still does (what it answers later is ignored: the response is sent once), unless the
 * answer has begun streaming by then: a deadline bounds the wait for the answer, not a stream.
 */
function underDeadline(ctx: Context, chain: ComposedMiddleware<Context>, timeout: number): Promise<void> {
  const at = Date.now() + timeout;
  ctx[SET_DEADLINE](at);
  let running: Promise<void>;
  try {
    running = ctx[NEEDS_BODY] ? ctx.parseBody().then(() => chain(ctx)) : chain(ctx);
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
    return Promise.reject(err);
  }
  // The answer has begun (server-sent events, a body piped into ctx.res): the deadline was met,
  // and the stream goes on, bounded by streams.maxDuration and the client's going away.
  return raceDeadline(running, at, timeout, (reason) => ctx[ABORT](reason), () => ctx[RAW_IN_USE]());
}
