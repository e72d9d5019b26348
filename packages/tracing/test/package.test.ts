import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Application } from '@fw/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { VERSION } from '../src/internal/version.js';
import { tracesUrl } from '../src/internal/sdk.js';
import { onlySpan } from './support.js';

describe('the package', () => {
  it('reports the version of package.json as the instrumentation scope version', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('declares the SDK packages as optional peer dependencies, so that installing it downloads none of them', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    const sdk = ['@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/resources', '@opentelemetry/sdk-node', '@opentelemetry/sdk-trace-base'];
    expect(pkg.optionalDependencies).toBeUndefined();
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@fw/core']);
    for (const name of sdk) {
      expect(pkg.peerDependencies?.[name]).toEqual(expect.any(String));
      expect(pkg.peerDependenciesMeta?.[name]).toEqual({ optional: true });
    }
    // The API is the one peer every install needs: the user's copy is the one used.
    expect(pkg.peerDependencies?.['@opentelemetry/api']).toBe('~1.9.0');
    expect(pkg.peerDependenciesMeta?.['@opentelemetry/api']).toBeUndefined();
  });

  it('appends /v1/traces to an endpoint without a path and keeps a full URL as it is', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otlp.example.com/')).toBe('https://otlp.example.com/v1/traces');
    expect(tracesUrl('http://collector:4318/otlp/v1/traces')).toBe('http://collector:4318/otlp/v1/traces');
  });

  it('works from its built CommonJS entry, starting the SDK with require() (no native import() in jest)', async () => {
    // `@fw/tracing` resolves to dist/index.cjs here, the file CommonJS users and jest load.
    const { tracingPlugin } = await import('@fw/tracing');
    const exporter = new InMemorySpanExporter();
    const app = new Application();
    const plugin = tracingPlugin({ serviceName: 'from-dist', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    app.register(plugin);
    app.get('/dist/:x', (ctx) => ctx.json({ traced: ctx.trace !== undefined }));
    expect((await app.inject('/dist/1')).json()).toEqual({ traced: true });
    expect(plugin.source).toBe('sdk');
    expect(onlySpan(exporter, 'GET /dist/:x').resource.attributes['service.name']).toBe('from-dist');
    await app.close();
  });
});
