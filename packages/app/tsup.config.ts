import { library } from '../../tooling/tsup/library.mjs';

// `@fw/app/<package>` subpaths: each re-exports one scoped package whole (see package.json exports).
const SUBPATHS = ['core', 'graphql', 'grpc', 'middleware', 'openapi', 'tracing', 'validate'];

export default [
  library({
    entry: { index: 'src/index.ts', ...Object.fromEntries(SUBPATHS.map((name) => [name, `src/reexport/${name}.ts`])) },
    // createApp's lazy loader reads import.meta only in the ES module build; the CommonJS build has require.
    esbuildOptions(options, context) {
      if (context.format === 'cjs') options.logOverride = { ...options.logOverride, 'empty-import-meta': 'silent' };
    },
  }),
  // The `fw` binary (package.json "bin"): an ES module run by node, with no types of its own.
  library({ entry: { 'bin/fw': 'src/bin/fw.ts' }, format: ['esm'], dts: false }),
];
