import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../src/internal/version.js';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined> & { version: string };

describe('the package', () => {
  it('reports the version of package.json as the instrumentation scope version', () => {
    expect(VERSION).toBe(pkg.version);
  });

  it('declares the SDK packages as optional peer dependencies, so that installing it downloads none of them', () => {
    const sdk = ['@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus', '@opentelemetry/exporter-metrics-otlp-proto', '@opentelemetry/exporter-metrics-otlp-http', '@opentelemetry/resources'];
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@fw/core']);
    for (const name of sdk) {
      expect(pkg.peerDependencies?.[name]).toEqual(expect.any(String));
      expect(pkg.peerDependenciesMeta?.[name]).toEqual({ optional: true });
    }
    expect(pkg.peerDependencies?.['@opentelemetry/api']).toBe('~1.9.0');
  });
});
