import type { IncomingMessage } from 'node:http';
import type { AnyMiddleware, Context, Operation } from '@fw/core';
import { clientIp, createLogger, type LogFunction, type PluginHost } from '@fw/core/plugin';
import { printSchema } from 'graphql';
import { resolveGraphQLConfig } from './config.js';
import { createEndpoint } from './endpoint/endpoint.js';
import { headerValue } from './endpoint/negotiation.js';
import { OperationSchemas } from './operations/source.js';
import { createConnectStep } from './subscriptions/connect.js';
import { streamHostOf } from './subscriptions/streams.js';
import type { WebSocketTransport } from './subscriptions/websocket.js';
import type { GraphQLConfig, GraphQLPlugin } from './types.js';

const NO_OPERATIONS: readonly Operation[] = Object.freeze([]);

/** The implementation of `graphqlPlugin`: the package exports ./lazy.ts's, which loads this on its first call. */
export function graphqlPlugin<TContext = unknown>(config: GraphQLConfig<TContext> | true): GraphQLPlugin {
  const resolved = resolveGraphQLConfig(config);
  let host: PluginHost | undefined;
  const schemas = new OperationSchemas(resolved.schema, () => host?.operations() ?? NO_OPERATIONS);
  // Without an onLog of its own, the app's logger once registered (stderr until then); escaped, and
  // a throwing logger never fails a request.
  const standalone = createLogger(resolved.onLog);
  const log: LogFunction = resolved.onLog !== undefined ? standalone : (message, error) => (host === undefined ? standalone(message, error) : host.log(message, error));
  // The app's JSON depth limit for GET's `variables` and `extensions` (core's default until registered).
  const endpoint = createEndpoint(resolved, schemas, {
    log,
    maxJsonDepth: () => host?.contextSettings.maxJsonDepth,
    streams: () => streamHostOf(host),
  });
  const { path } = endpoint.config;
  const subscriptions = resolved.subscriptions;
  let websocket: WebSocketTransport | undefined;
  return {
    name: 'graphql',
    path,
    handler: endpoint.handler,
    getSchema: () => schemas.current().schema,
    printSchema: () => printSchema(schemas.current().schema),
    setup(pluginHost: PluginHost): void {
      if (host !== undefined) throw new Error('This GraphQL plugin is already registered on an application; make one plugin per application.');
      host = pluginHost;
      // Before each operation is registered (and now, for those registered already): one GraphQL
      // cannot serve makes app.operation() throw.
      host.onOperation((op) => schemas.check(op));
      // Nothing to serve is a configuration error: fail listen() rather than the first request.
      host.onListen(() => void schemas.current());
      // Around the global middleware, on this path only: a 429 from rateLimit(), a 401 from
      // authenticate or a 413 from a body read becomes a GraphQL response ({ errors }) with its
      // status and headers.
      host.claimPath(path, endpoint.handler, { protocol: 'graphql', guard: endpoint.guard });
      const playground = endpoint.playground;
      if (playground !== undefined) {
        // The GraphiQL files are plain HTTP, on exact paths under the endpoint.
        for (const assetPath of playground.assetPaths) host.claimPath(assetPath, playground.asset, { protocol: 'http' });
      }
      if (subscriptions !== false && subscriptions.websocket) {
        const appHost = pluginHost;
        // The wrappers (tracing) and the global middleware, as a request to the path would run them,
        // but for the per-call middleware (rateLimit), which each operation runs instead.
        let listed: [readonly unknown[], readonly unknown[], readonly AnyMiddleware[]] | undefined;
        const middleware = (): readonly AnyMiddleware[] => {
          const wrappers = appHost.wrappers();
          const global = appHost.connectionMiddleware();
          if (listed === undefined || listed[0] !== wrappers || listed[1] !== global) listed = [wrappers, global, Object.freeze([...wrappers, ...global])];
          return listed[2];
        };
        const connect = createConnectStep({ middleware, contextSettings: () => appHost.contextSettings, answered: (ctx, status) => appHost.answered(ctx, status) }, log);
        const clientKey = (req: IncomingMessage): string => clientIp(req.socket.remoteAddress ?? '', headerValue(req.headers['x-forwarded-for']), appHost.contextSettings.trustProxy);
        const admission = { checkOrigin: (req: IncomingMessage) => appHost.checkOrigin(req), perCall: (ctx: Context) => appHost.perCall(ctx) };
        const limits = { maxPerConnection: subscriptions.maxPerConnection, connectionInitTimeout: subscriptions.connectionInitTimeout, maxPayload: () => appHost.contextSettings.bodyLimit };
        // ws and graphql-ws load with the first upgrade (ws alone takes tens of ms to load): an
        // app that never sees a WebSocket does not pay for them at start-up.
        let loading: Promise<WebSocketTransport> | undefined;
        const load = (): Promise<WebSocketTransport> =>
          (loading ??= import('./subscriptions/websocket.js').then(({ createWebSocketTransport }) => {
            websocket = createWebSocketTransport(endpoint.start, connect, () => streamHostOf(appHost), clientKey, limits, log, admission);
            return websocket;
          }));
        host.onUpgrade(path, (req, socket, head) => {
          if (websocket !== undefined) return websocket.upgrade(req, socket, head);
          // Until the transport has loaded, the socket waits (unread); an error meanwhile only closes it.
          const failed = (): void => void socket.destroy();
          socket.once('error', failed);
          load().then(
            (transport) => {
              socket.off('error', failed);
              if (!socket.destroyed) transport.upgrade(req, socket, head);
            },
            (err: unknown) => {
              log('GraphQL WebSocket transport failed to load', err);
              socket.destroy();
            },
          );
        });
      }
      // Every subscription completes before the app has closed.
      host.onClose(async () => {
        await Promise.all([endpoint.sse?.close(), websocket?.close()]);
      });
    },
  };
}
