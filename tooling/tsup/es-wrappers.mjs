// Run in a package's directory after tsup: writes the ES module entry of every export of its
// package.json (`import` → `./dist/x.js`) as a thin wrapper that re-exports the CommonJS build's
// objects (`require` → `./dist/x.cjs`), and the entry's declarations for `import` (`.d.ts`) from
// those for `require` (`.d.cts`).
//
// The wrapper takes the build's exports object through a two-line CommonJS file (`x.import.cjs`)
// rather than importing the build itself: node scans the source of every CommonJS module an ES
// module imports for its export names, and on the builds (up to 150 kB) that scan cost more than
// loading them (`import '@fw/core'` 50 ms against 13 ms for `require`). The wrapper needs no names
// from the scan (it reads them from the object), and bundlers follow the file's static require.
//
// Why a wrapper rather than a second build: two builds each carry their own classes, and a
// process that loads both (an `import` here, a `require` there: tsx, a CommonJS dependency, a
// loader hook) has two `HTTPError`s, and `instanceof` is silently false. A wrapper holds no code
// of its own, so every loader ends at the one CommonJS module: Node's `import` (the wrapper, then
// node's CommonJS loader), `require` (the CommonJS file), tsx, jest (CommonJS, which cannot
// require an ES module), and bundlers (which follow the wrapper's static import).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const dir = process.cwd();
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const load = createRequire(join(dir, 'package.json'));

/** Keys of a CommonJS module's exports that are not exports of the source. */
const NOT_EXPORTS = new Set(['__esModule', 'default']);

/** Every file under `folder`. */
const filesIn = (folder) => readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesIn(join(folder, e.name)) : [join(folder, e.name)]));

// A build with several entries is split (tsup builds it as ES modules, then CommonJS), which turns
// each `require('x')` into esbuild's `__require('x')` (`chunk_cjs.__require('x')` once rollup has
// made the chunks CommonJS, `chunk.__require.call(void 0, 'x')` without it): the same call at run time, but
// one a bundler does not follow, so a bundled program would load the package's implementation and
// its libraries from disk beside the bundle (a second graphql, a second HTTPError). Written back
// as the plain `require('x')` it was; the line count is kept, so the source maps stay right.
for (const file of filesIn(join(dir, 'dist'))) {
  if (!file.endsWith('.cjs')) continue;
  const text = readFileSync(file, 'utf8');
  let plain = text.replace(/(?:\b[\w$]+\.__require\.call\(void 0, |\b[\w$]+\.__require\(|(?<![.\w$])__require\()("[^"\n]+")\)/g, 'require($1)');
  // Rollup marks a CommonJS build as converted from an ES module only when it has a default export;
  // TypeScript's and Babel's interop (`import * as fw`, `import fw from`) read that mark, so each
  // file carries it, as esbuild writes it (on the first line: the line count is kept).
  if (!/Object\.defineProperty\(exports, ['"]__esModule['"]/.test(plain)) plain = plain.replace(/^(['"])use strict\1;/, "$&Object.defineProperty(exports, '__esModule', { value: true });");
  if (plain !== text) writeFileSync(file, plain);
}

for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
  if (typeof entry !== 'object' || entry === null) continue; // ./package.json
  const esm = entry.import?.default;
  const cjs = entry.require?.default;
  if (typeof esm !== 'string' || typeof cjs !== 'string') throw new Error(`${manifest.name}: exports["${subpath}"] needs import and require targets`);
  // The names are the built module's own: loading it runs only declarations (the packages have no side effects).
  const names = Object.keys(load(resolve(dir, cjs))).filter((name) => !NOT_EXPORTS.has(name)).sort();
  const build = `./${relative(join(dir, esm, '..'), resolve(dir, cjs))}`;
  const handOver = build.replace(/\.cjs$/, '.import.cjs');
  writeFileSync(
    resolve(dir, cjs.replace(/\.cjs$/, '.import.cjs')),
    [
      '"use strict";',
      `// The exports of ${build}, for the ES module entry beside it: node scans what an ES module imports for`,
      '// export names, and the entry needs none. Written by tooling/tsup/es-wrappers.mjs.',
      `const build = require('${build}');`,
      'module.exports = build;',
      '',
    ].join('\n'),
  );
  const lines = [
    `// ${manifest.name}${subpath === '.' ? '' : subpath.slice(1)} for \`import\`: the objects of the CommonJS build (${build}), so that`,
    '// `import` and `require` share one module instance. Written by tooling/tsup/es-wrappers.mjs.',
    `import cjs from '${handOver}';`,
    '',
    names.length === 0 ? 'export {};' : `export const {\n${names.map((name) => `  ${name},`).join('\n')}\n} = cjs;`,
    '',
  ];
  writeFileSync(resolve(dir, esm), lines.join('\n'));
}

// The declarations of the ES module entries: the same as the CommonJS ones, their relative imports
// (shared declaration chunks) pointing at the `.d.ts` twins.
for (const file of filesIn(join(dir, 'dist'))) {
  if (!file.endsWith('.d.cts')) continue;
  const text = readFileSync(file, 'utf8').replace(/(['"]\.{1,2}\/[^'"]+)\.cjs(['"])/g, '$1.js$2');
  writeFileSync(file.replace(/\.d\.cts$/, '.d.ts'), text);
}
