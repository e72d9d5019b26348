import { library } from '../../tooling/tsup/library.mjs';

// `@fw/app/<package>` subpaths: each re-exports one scoped package whole (see package.json exports).
const SUBPATHS = ['connect', 'core', 'graphql', 'grpc', 'metrics', 'middleware', 'openapi', 'tracing', 'validate'];

export default [
  library({
    entry: { index: 'src/index.ts', ...Object.fromEntries(SUBPATHS.map((name) => [name, `src/reexport/${name}.ts`])) },
    // The `fw` command's worker entry is found through import.meta in its ES module build (below);
    // the CommonJS build has require.
    esbuildOptions(options) {
      options.logOverride = { ...options.logOverride, 'empty-import-meta': 'silent' };
    },
  }),
  // The `fw` binary (package.json "bin"): an ES module run by node, with no types of its own.
  library({ entry: { 'bin/fw': 'src/bin/fw.ts' }, format: ['esm'], dts: false }),
];
