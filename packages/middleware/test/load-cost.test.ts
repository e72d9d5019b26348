import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// @fw/app's root exports this package to every app: importing the built package and reading its
// defaults compiles none of the middleware factories' code (dist/internal/implementation.cjs);
// the first factory called loads it, and what it returns is the implementation's own middleware.

/** The package's own files in a fresh process's require cache after `body` ran (`fw` is the built package). */
function filesAfter(body: string): string[] {
  const script = `
    const fw = require('@fw/middleware');
    ${body}
    const dist = require('node:path').dirname(require.resolve('@fw/middleware'));
    const files = Object.keys(require.cache).filter((file) => file.startsWith(dist)).map((file) => file.slice(dist.length + 1));
    process.stdout.write(JSON.stringify(files.sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
}

describe('loading @fw/middleware', () => {
  it('loads no middleware implementation for the defaults, the stores and authenticate', () => {
    const files = filesAfter(`
      if (fw.DEFAULT_CORS_MAX_AGE !== 86400 || fw.DEFAULT_SECURE_HEADERS['x-frame-options'] !== 'DENY') throw new Error('values');
      new fw.MemoryStore();
      if (typeof fw.authenticate !== 'function' || fw.clientIpKey('127.0.0.1') !== '127.0.0.1') throw new Error('values');`);
    expect(files).not.toContain('internal/implementation.cjs');
    expect(files).toContain('index.cjs');
  });

  it('loads it with the first factory called', () => {
    expect(filesAfter(`fw.cors();`)).toContain('internal/implementation.cjs');
    expect(filesAfter(`fw.secureHeaders();`)).toContain('internal/implementation.cjs');
  });
});
