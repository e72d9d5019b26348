import { Application } from '@fw/core';
import { DEFAULT_MAX_CONNECTION_IDLE_MS, grpcPlugin } from '../src/index.js';
import { PROTO } from './helpers.js';

/** The grpc-js server options the plugin started its server with. */
function serverOptions(plugin: ReturnType<typeof grpcPlugin>): Record<string, unknown> {
  return (plugin.server as unknown as { options: Record<string, unknown> }).options;
}

describe('server defaults', () => {
  it('closes connections that carry no call for two minutes unless told otherwise', async () => {
    const app = new Application({ onLog: () => undefined });
    const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', protoPath: PROTO, services: { 'fwtest.Echo': { Unary: (call, callback) => callback(null, {}) } } });
    app.register(plugin);
    await app.listen(0, '127.0.0.1');
    try {
      expect(DEFAULT_MAX_CONNECTION_IDLE_MS).toBe(120_000);
      expect(serverOptions(plugin)['grpc.max_connection_idle_ms']).toBe(120_000);
    } finally {
      await app.close();
    }
  });

  it('lets serverOptions override the idle limit', async () => {
    const app = new Application({ onLog: () => undefined });
    const plugin = grpcPlugin({
      port: 0,
      host: '127.0.0.1',
      protoPath: PROTO,
      serverOptions: { 'grpc.max_connection_idle_ms': 1000 },
      services: { 'fwtest.Echo': { Unary: (call, callback) => callback(null, {}) } },
    });
    app.register(plugin);
    await app.listen(0, '127.0.0.1');
    try {
      expect(serverOptions(plugin)['grpc.max_connection_idle_ms']).toBe(1000);
    } finally {
      await app.close();
    }
  });
});
