import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RedisStore, type RedisClientLike } from './index.js';

/** The Node built-ins a fresh process loads when it imports the built package after `@fw/core`. */
function builtinsLoadedBy(entry: string): { loaded: string[]; exports: string[] } {
  const script = `
    await import('@fw/core');
    const before = new Set(process.moduleLoadList);
    const mod = await import(${JSON.stringify(pathToFileURL(entry).href)});
    const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice(13));
    process.stdout.write(JSON.stringify({ loaded, exports: Object.keys(mod) }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { loaded: string[]; exports: string[] };
}

describe('start-up cost', () => {
  it('importing the package loads neither node:crypto nor node:perf_hooks (they load on first use)', () => {
    const { loaded, exports } = builtinsLoadedBy(join(__dirname, '..', 'dist', 'index.js'));
    expect(exports).toEqual(expect.arrayContaining(['cors', 'logger', 'RedisStore', 'jwtVerifier']));
    expect(loaded).not.toContain('crypto');
    expect(loaded).not.toContain('perf_hooks');
  });

  it('RedisStore still calls EVALSHA with the SHA-1 of the script it falls back to with EVAL', async () => {
    const calls: Array<{ command: string; first: unknown }> = [];
    const client = {
      evalsha: (sha: string) => {
        calls.push({ command: 'evalsha', first: sha });
        return Promise.reject(new Error('NOSCRIPT No matching script'));
      },
      eval: (source: string) => {
        calls.push({ command: 'eval', first: source });
        return Promise.resolve([1, 1000]);
      },
      del: () => Promise.resolve(1),
    } as unknown as RedisClientLike;
    await new RedisStore({ client }).increment('k', 1000);
    expect(calls.map((c) => c.command)).toEqual(['evalsha', 'eval']);
    expect(calls[0]!.first).toBe(createHash('sha1').update(calls[1]!.first as string).digest('hex'));
  });
});
