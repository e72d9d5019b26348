import { Application, type ApplicationConfig } from '@fw/core';

/** Options of `createApp`: the spec's fields plus the core server settings. */
export interface AppOptions extends ApplicationConfig {
  /** The HTTP adapter; `node-http` is the only one and is required when gRPC is used. @default { type: 'node-http' } */
  adapter?: { type: string };
}

/** The application object `createApp` returns. */
export interface App extends Application {
  /** The protocol manager, or undefined when no protocols are configured. */
  getProtocolManager(): undefined;
}

/**
 * Creates an application.
 * @example
 * const app = createApp();
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen(3000);
 */
export function createApp(options: AppOptions = {}): App {
  const { adapter, ...config } = options;
  if (adapter !== undefined && (adapter === null || typeof adapter.type !== 'string')) {
    throw new TypeError('createApp: adapter must be an object with a string "type" (e.g. { type: "node-http" })');
  }
  const app = new Application(config) as App;
  app.getProtocolManager = () => undefined;
  return app;
}
