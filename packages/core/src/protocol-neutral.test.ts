import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Core holds the neutral vocabulary; each protocol package owns its names (ARCHITECTURE.md, "Errors
// across protocols" and "The request context"). So core's source — code, strings and comments
// alike — names no protocol that a package of its own serves. Tests (`*.test.ts`, `*.case.ts`) may.
const PROTOCOL_NAMES = /grpc|graphql/i;
const SRC = __dirname;

/** Every source file of core, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !/\.(test|case)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe("core's source", () => {
  it('has files to look at', () => {
    expect(sources(SRC).length).toBeGreaterThan(20);
  });

  it('names no protocol a package of its own serves, in code, strings or comments', () => {
    const found = sources(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (PROTOCOL_NAMES.test(line) ? [`${relative(SRC, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('exports no name of such a protocol from @fw/core or @fw/core/plugin', async () => {
    const names = [...Object.keys(await import('./index.js')), ...Object.keys(await import('./plugin.js'))];
    expect(names.filter((name) => PROTOCOL_NAMES.test(name))).toEqual([]);
  });
});
