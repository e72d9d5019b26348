import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

describe('start-up cost', () => {
  it('importing the package loads neither node:crypto nor node:module (they load on first use)', () => {
    const entry = pathToFileURL(join(__dirname, '..', 'dist', 'index.js')).href;
    const script = `
      await import('@fw/core');
      const before = new Set(process.moduleLoadList);
      const mod = await import(${JSON.stringify(entry)});
      const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice(13));
      process.stdout.write(JSON.stringify({ loaded, exports: Object.keys(mod) }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
    const { loaded, exports } = JSON.parse(child.stdout) as { loaded: string[]; exports: string[] };
    expect(exports).toEqual(expect.arrayContaining(['openapi', 'openapiPlugin', 'checkContract']));
    expect(loaded).not.toContain('crypto');
    expect(loaded).not.toContain('module');
  });
});
