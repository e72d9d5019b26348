import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// @fw/app exports this package's functions to every app, traced or not: importing the built
// package must load no OpenTelemetry package; tracingPlugin() loads the API, and the SDK waits
// for listen().

const OPENTELEMETRY = /[\\/]node_modules[\\/](@opentelemetry[\\/][^\\/]+)[\\/]/;

/** The OpenTelemetry packages in a fresh process's require cache after `body` ran (`fw` is the built package). */
function packagesAfter(body: string): string[] {
  const script = `
    const fw = require('@fw/tracing');
    ${body}
    const names = Object.keys(require.cache).map((file) => (${OPENTELEMETRY.toString()}.exec(file) || [])[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)].sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
}

describe('loading @fw/tracing', () => {
  it('loads no OpenTelemetry package, and its span names and attribute keys need none', () => {
    expect(packagesAfter(`if (fw.httpSpanName('GET', '/a') !== 'GET /a' || fw.ATTR_HTTP_ROUTE !== 'http.route') throw new Error('values');`)).toEqual([]);
  });

  it('loads @opentelemetry/api with tracingPlugin(), and no SDK package', () => {
    expect(packagesAfter(`fw.tracingPlugin({ serviceName: 'load-cost' });`)).toEqual(['@opentelemetry/api']);
  });
});
