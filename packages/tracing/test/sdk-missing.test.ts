import { Application } from '@fw/core';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { tracingPlugin } from '../src/index.js';
import { loadPeer } from '../src/internal/sdk.js';

// The SDK packages are optional peer dependencies: an app that never lets the plugin start the SDK
// need not install them. When it does need one that is missing, the error names what to install.
// A package's absence is simulated the way Node reports it to `require()`.
function notInstalled(name: string): never {
  const error = new Error(`Cannot find module '${name}'\nRequire stack:\n- ${__filename}`) as Error & { code: string };
  error.code = 'MODULE_NOT_FOUND';
  throw error;
}

afterEach(() => {
  jest.dontMock('@opentelemetry/sdk-node');
});

describe('a missing SDK package', () => {
  it('makes listen() reject with an error naming @opentelemetry/sdk-node and how to install it', async () => {
    jest.doMock('@opentelemetry/sdk-node', () => notInstalled('@opentelemetry/sdk-node'));
    const app = new Application({ onLog: () => undefined });
    app.register(tracingPlugin({ exporter: 'none' }));
    const listening = app.listen(0, '127.0.0.1');
    await expect(listening).rejects.toThrow('npm install @opentelemetry/sdk-node');
    await expect(listening).rejects.toThrow(/optional peer dependency of @fw\/tracing/);
    await expect(listening).rejects.toMatchObject({ cause: { code: 'MODULE_NOT_FOUND' } });
    expect(isSpanContextValid(trace.getTracer('probe').startSpan('probe').spanContext())).toBe(false);
  });

  it('reports a package that is installed but fails to load as such, with its own error', async () => {
    jest.doMock('@opentelemetry/sdk-node', () => {
      throw new SyntaxError('Unexpected token in sdk-node');
    });
    const plugin = tracingPlugin({ exporter: 'none' });
    new Application().register(plugin);
    const starting = plugin.start();
    await expect(starting).rejects.toThrow(/"@opentelemetry\/sdk-node" could not be loaded: Unexpected token in sdk-node/);
    await expect(starting).rejects.not.toThrow(/npm install/);
  });
});

describe('loading an SDK package', () => {
  // The other SDK packages are dependencies of sdk-node, so they cannot be taken away in-process
  // without breaking it: their absence is simulated at the loader, as Node's ESM loader reports it.
  it('names the exporter package and the command installing it when import() cannot find it', async () => {
    const name = '@opentelemetry/exporter-trace-otlp-http';
    const missing = Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/@fw/tracing/dist/index.js`), { code: 'ERR_MODULE_NOT_FOUND' });
    const loading = loadPeer(name, () => Promise.reject(missing));
    await expect(loading).rejects.toThrow(`npm install ${name}`);
    await expect(loading).rejects.toMatchObject({ cause: missing });
  });

  it('does not blame the package when what is missing is something it needs itself', async () => {
    const missing = Object.assign(new Error("Cannot find module 'protobufjs/minimal'"), { code: 'MODULE_NOT_FOUND' });
    const loading = loadPeer('@opentelemetry/exporter-trace-otlp-proto', () => Promise.reject(missing));
    await expect(loading).rejects.toThrow(/"@opentelemetry\/exporter-trace-otlp-proto" could not be loaded: Cannot find module 'protobufjs\/minimal'/);
  });

  it('hands back the names of a CommonJS package imported from ESM', async () => {
    const loaded = await loadPeer('cjs-package', () => Promise.resolve({ default: { NodeSDK: 'the class' } }));
    expect(loaded).toMatchObject({ NodeSDK: 'the class' });
  });
});
