import { ServerResponse, type IncomingMessage } from 'node:http';
import { Context, compose, toHTTPError, type AnyMiddleware, type ComposedMiddleware, type Middleware } from '@fw/core';
import { isServerFault, type ContextSettings, type LogFunction } from '@fw/core/plugin';

/** What the connect step reads from the app: its middleware as it is now, and its context settings. */
export interface ConnectHost {
  /** The app's wrappers then its global middleware, in order (a new list after each `use`/`wrap`). */
  readonly middleware: () => readonly AnyMiddleware[];
  readonly contextSettings: () => Readonly<ContextSettings>;
  /** `host.answered`: tells the app's response hooks the status a connection's context was answered with. */
  readonly answered: (ctx: Context, status: number) => void;
}

/** The status of an upgrade request the WebSocket handshake answered. */
const SWITCHING_PROTOCOLS = 101;

/** A connection the app's middleware let through (its fw context), or the status it was refused with. */
export type Connected = { readonly ctx: Context } | { readonly status: number; readonly message: string };

/**
 * Runs the app's middleware once for a WebSocket connection, when its `connection_init` arrives:
 * on an fw `Context` made from the upgrade request (headers, address, `ctx.protocol` 'graphql'),
 * with `authorization` taken from the init payload when the request had none (browsers cannot set
 * headers on a WebSocket): `{ authorization: 'Bearer …' }` as it is, `{ token: '…' }` as a bearer
 * token. A middleware that throws refuses with its status (401, 403, 429, ...); one that answers
 * itself without calling `next()` refuses with the status it set. Either way the app's response
 * hooks are told the answer then (101 for a connection let through, else the refusal's status), so
 * what they end for a request (the upgrade request's server span) ends with the step.
 */
export function createConnectStep(host: ConnectHost, log: LogFunction): (req: IncomingMessage, payload: Readonly<Record<string, unknown>> | undefined) => Promise<Connected> {
  let composedFor: readonly AnyMiddleware[] | undefined;
  let chain: ComposedMiddleware<Context> | undefined;

  return async (req, payload) => {
    const authorization = authorizationOf(payload);
    if (authorization !== undefined && req.headers.authorization === undefined) req.headers.authorization = authorization;
    // Middleware records its answer on the context; nothing is written for a WebSocket.
    const ctx = new Context(req, new ServerResponse(req), host.contextSettings());
    ctx.protocol = 'graphql';
    const list = host.middleware();
    if (list !== composedFor || chain === undefined) {
      chain = compose<Context>(list as ReadonlyArray<Middleware<Context>>);
      composedFor = list;
    }
    let passed = false;
    try {
      await chain(ctx, () => {
        passed = true;
        return Promise.resolve();
      });
    } catch (err) {
      const error = toHTTPError(err);
      if (isServerFault(error)) log(`GraphQL WebSocket connection refused by middleware on ${ctx.path}`, err);
      host.answered(ctx, error.statusCode);
      return { status: error.statusCode, message: error.expose ? error.message : 'Internal server error' };
    }
    if (!passed) {
      const status = ctx.statusCode >= 400 ? ctx.statusCode : 403;
      host.answered(ctx, status);
      return { status, message: status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : `Refused (${status})` };
    }
    host.answered(ctx, SWITCHING_PROTOCOLS);
    return { ctx };
  };
}

function authorizationOf(payload: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (payload === undefined) return undefined;
  const { authorization, Authorization, token } = payload as { authorization?: unknown; Authorization?: unknown; token?: unknown };
  const given = authorization ?? Authorization;
  if (typeof given === 'string' && given !== '') return given;
  if (typeof token === 'string' && token !== '') return `Bearer ${token}`;
  return undefined;
}
