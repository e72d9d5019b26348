import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// @fw/app exports this package's functions to every app, measured or not: importing the built
// package, or creating the plugin, must load no OpenTelemetry package (the SDK starts at listen()).

const OPENTELEMETRY = /[\\/]node_modules[\\/](@opentelemetry[\\/][^\\/]+)[\\/]/;

/** The OpenTelemetry packages in a fresh process's require cache after `body` ran (`fw` is the built package). */
function packagesAfter(body: string): string[] {
  const script = `
    const fw = require('@fw/metrics');
    ${body}
    const names = Object.keys(require.cache).map((file) => (${OPENTELEMETRY.toString()}.exec(file) || [])[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)].sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
}

describe('loading @fw/metrics', () => {
  it('loads no OpenTelemetry package, with the plugin created too', () => {
    expect(packagesAfter(`if (fw.metricsPlugin({}).name !== 'metrics') throw new Error('plugin');`)).toEqual([]);
  });
});
