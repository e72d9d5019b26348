import { compose, type ComposedMiddleware } from './compose.js';
import type { Context } from './context.js';
import { HTTPError } from './http-error.js';
import { RESOLVED } from './internal/resolved.js';
import type { Router } from './router.js';
import type { AnyMiddleware, Middleware } from './types.js';

interface Claim {
  run: ComposedMiddleware<Context>;
  protocol: string;
}

/** Records the 404 for a request nobody answered. */
function answerMissing(ctx: Context): void {
  if (!ctx.responded) ctx._notFound();
}

/**
 * What runs for one HTTP request: the wrappers, the global middleware, then the claimed path or the
 * route table, then "nothing answered" as a 404. After the chain, `ctx.statusCode` is the status
 * that will be sent (unless something threw, which the responder answers).
 */
export class Pipeline {
  /** Middleware that runs outside all global middleware (`wrap`). */
  readonly wrappers: AnyMiddleware[] = [];
  /** The global middleware (`app.use`), run for every request, matched or not. */
  readonly middleware: AnyMiddleware[] = [];
  /** The answer for requests no route matches (`app.notFound`); the standard 404 when undefined. */
  notFound: ComposedMiddleware<Context> | undefined = undefined;
  readonly #claims = new Map<string, Claim>();
  #chain: ComposedMiddleware<Context> | undefined = undefined;
  #middlewareView: readonly AnyMiddleware[] | undefined = undefined;
  #wrappersView: readonly AnyMiddleware[] | undefined = undefined;

  constructor(
    private readonly router: Router,
    private readonly methodNotAllowed: boolean,
  ) {}

  /** Forgets the composed chain after `use` or `wrap`; the next request composes it again. */
  changed(): void {
    this.#chain = undefined;
    this.#middlewareView = undefined;
    this.#wrappersView = undefined;
  }

  /**
   * The global middleware as a frozen list that stays the same object until the next `use`, so a
   * plugin that runs it for another protocol can tell "unchanged" by identity, per call.
   */
  middlewareView(): readonly AnyMiddleware[] {
    return (this.#middlewareView ??= Object.freeze(this.middleware.slice()));
  }

  /** The wrappers as a frozen list that stays the same object until the next `wrap`. */
  wrappersView(): readonly AnyMiddleware[] {
    return (this.#wrappersView ??= Object.freeze(this.wrappers.slice()));
  }

  /** Answers every request to exactly `path` with `handler`, after the global middleware. */
  claim(path: string, handler: AnyMiddleware, protocol: string): void {
    if (this.#claims.has(path)) throw new Error(`Path "${path}" is already claimed by a plugin`);
    this.#claims.set(path, { run: compose<Context>([handler as Middleware<Context>]), protocol });
  }

  /** Runs the request through the whole chain. */
  run(ctx: Context): Promise<void> {
    if (this.#claims.size !== 0) {
      const claim = this.#claims.get(ctx.path);
      if (claim !== undefined) {
        // Said from the start of the request, so the global middleware sees it too.
        ctx.protocol = claim.protocol;
        ctx._claimed = claim.run;
      }
    }
    return (this.#chain ??= this.#compose())(ctx);
  }

  #compose(): ComposedMiddleware<Context> {
    const chain = [...this.wrappers, ...this.middleware] as Array<Middleware<Context>>;
    if (chain.length === 0) return this.#stage;
    // With middleware around it, a request nobody answered is given its 404 here, so that the
    // middleware reads `ctx.statusCode === 404` after `await next()` (a logger logs 404s).
    // Without any, the responder writes the same 404 and no promise is added per request.
    return compose<Context>([...chain, (ctx) => this.#settled(ctx)]);
  }

  #settled(ctx: Context): Promise<void> {
    const pending = this.#stage(ctx);
    if (pending === RESOLVED) {
      answerMissing(ctx);
      return RESOLVED;
    }
    // The route's value goes on to the global middleware's `await next()`, as compose passes it.
    return pending.then((value) => {
      answerMissing(ctx);
      return value;
    });
  }

  /** The claimed path's handler, else the matched route's chain, else the missing answer. */
  readonly #stage = (ctx: Context): Promise<void> => {
    // The path was looked up among the claimed ones when the request came in.
    if (ctx._claimed !== undefined) return ctx._claimed(ctx);
    const path = ctx.path;
    if (path.indexOf('%') !== -1) {
      try {
        decodeURI(path);
      } catch {
        throw new HTTPError(400, 'Invalid percent-encoding in path');
      }
    }
    const found = this.router._match(ctx.method, path);
    if (found === null) return this.#missing(ctx, path);
    if (found.value.dynamic) ctx.params = found.params;
    ctx.route = found.value.route;
    if (ctx._needsBody) return ctx.parseBody().then(() => found.value.chain(ctx));
    return found.value.chain(ctx);
  };

  /** No route for this method and path: 405 (or the OPTIONS answer) when other methods have one, else not found. */
  #missing(ctx: Context, path: string): Promise<void> {
    if (this.methodNotAllowed) {
      const allowed = this.router._allowedMethods(path);
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
    if (this.notFound !== undefined) return this.notFound(ctx);
    ctx._notFound();
    return RESOLVED;
  }
}
