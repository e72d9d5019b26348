// Shared tsup settings: one CommonJS build per entry, with its type declarations. The ES module
// entries are thin wrappers over it, written after the build (es-wrappers.mjs), so that `import`,
// `require`, tsx, jest and bundlers all reach the same module: one instance of every class.
import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

// A package's functions that need its large modules (src/lazy.ts) load them on their first call
// from src/internal/implementation.ts. Built as an entry of its own, in its own file, so that
// loading the package reads and compiles none of that code; the modules both entries use are
// shared through chunks (splitting), so each exists once, whichever entry loads it first.
const IMPLEMENTATION = 'src/internal/implementation.ts';

/** Leaves lazy.ts's require of the implementation to run time, to the entry's own file. */
const implementationApart = {
  name: 'implementation-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/internal\/implementation\.js$/ }, (args) =>
      /[\\/]src[\\/]lazy\.ts$/.test(args.importer) ? { path: './internal/implementation.cjs', external: true } : undefined,
    );
  },
};

/** @param {import('tsup').Options} [overrides] */
export function library(overrides = {}) {
  const { esbuildOptions, ...rest } = overrides;
  const { entry: entries = { index: 'src/index.ts' } } = overrides;
  const apart = !Array.isArray(entries) && !(overrides.format ?? []).includes('esm') && existsSync(IMPLEMENTATION);
  return defineConfig({
    ...(apart ? { splitting: true, esbuildPlugins: [implementationApart] } : {}),
    // CommonJS with splitting: tsup otherwise converts esbuild's ES module chunks with sucrase,
    // which also lowers optional chaining, `??` and class fields into helper calls (on the request
    // path) and renames classes (`new _class5` in stack traces). Rollup (treeshake) converts them
    // as they are.
    ...(apart || (overrides.splitting === true && !(overrides.format ?? []).includes('esm')) ? { treeshake: true } : {}),
    format: ['cjs'],
    dts: true,
    // The package's build script empties dist/ first: a package with several configs (an extra
    // entry, a command) builds them side by side, and a clean in one would race the others.
    clean: false,
    sourcemap: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    esbuildOptions(options, context) {
      // In the CommonJS build, optional modules loaded with import() are loaded with require():
      // a native import() from CommonJS fails under runners without ESM support in their VM
      // (jest without --experimental-vm-modules).
      if (context.format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
      // With splitting, tsup builds CommonJS as ES modules and converts them afterwards, which leaves
      // import.meta in place: a syntax error in a CommonJS file. Give it the value a CommonJS build
      // without splitting gives it (esbuild's empty import.meta), so code can test for it.
      if (context.format === 'cjs') options.define = { ...options.define, 'import.meta.url': 'undefined' };
      esbuildOptions?.(options, context);
    },
    ...rest,
    entry: apart ? { ...entries, 'internal/implementation': IMPLEMENTATION } : entries,
  });
}
