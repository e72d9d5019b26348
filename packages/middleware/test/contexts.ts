// Test helpers: request contexts of other protocols, built as a protocol package builds them.
import type { Context, Next, RequestContext } from '@fw/core';
import { ContextVariables } from '@fw/core/plugin';

/** The fields of a call context that tests choose. */
export interface CallContextInit {
  protocol?: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  ip?: string;
  statusCode?: number;
  user?: unknown;
  setHeader?: (key: string, value: string) => unknown;
}

/**
 * A call context of a protocol other than HTTP (a gRPC call by default): exactly `RequestContext`,
 * with per-request variables, and nothing of the HTTP `Context`. The headers it is given are in `sent`.
 */
export function callContext(init: CallContextInit = {}): RequestContext & { readonly sent: Record<string, string> } {
  const sent: Record<string, string> = {};
  const variables = new ContextVariables();
  const path = init.path ?? '/shop.Orders/Get';
  return {
    protocol: init.protocol ?? 'grpc',
    method: init.method ?? 'POST',
    path,
    headers: init.headers ?? {},
    state: {},
    ip: init.ip ?? '127.0.0.1',
    statusCode: init.statusCode ?? 0,
    procedure: { service: 'shop.Orders', method: path.slice(path.lastIndexOf('/') + 1) },
    user: init.user,
    signal: new AbortController().signal,
    sent,
    setHeader:
      init.setHeader ??
      ((key: string, value: string) => {
        sent[key.toLowerCase()] = value;
      }),
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
  };
}

/**
 * Runs HTTP middleware on a call context the way a protocol package runs the app's middleware
 * (`app.use`) on its own calls: typed on `Context`, it still meets other contexts at run time.
 */
export function runOnCall(middleware: (ctx: Context, next: Next) => Promise<void>, ctx: RequestContext, next: Next): Promise<void> {
  return (middleware as (ctx: RequestContext, next: Next) => Promise<void>)(ctx, next);
}
