import { library } from '../../tooling/tsup/library.mjs';

// `@fw/app/<package>` subpaths: each re-exports one scoped package whole (see package.json exports).
const SUBPATHS = ['core', 'graphql', 'grpc', 'metrics', 'middleware', 'openapi', 'tracing', 'validate'];

/**
 * A subpath's `import ... from '../index.js'` stays an import of `@fw/app` itself (resolved by node
 * through the package's exports), so the root's lazy functions and classes exist once: bundled
 * into each subpath (or split into a chunk the root would load too), they would be copies.
 */
const rootAsItself = {
  name: 'fw-app-root-as-itself',
  setup(build: { onResolve(options: { filter: RegExp }, callback: (args: { importer: string }) => { path: string; external: boolean } | undefined): void }) {
    build.onResolve({ filter: /^\.\.\/index\.js$/ }, (args) => (/[\\/]src[\\/]reexport[\\/]/.test(args.importer) ? { path: '@fw/app', external: true } : undefined));
  },
};

export default [
  library({
    entry: { index: 'src/index.ts', ...Object.fromEntries(SUBPATHS.map((name) => [name, `src/reexport/${name}.ts`])) },
    esbuildPlugins: [rootAsItself],
    // No shared chunks: the entries share no code (a subpath imports the root as a package), and a
    // chunk would be one more module for every import of the root.
    splitting: false,
    // createApp's lazy loader reads import.meta only in the ES module build; the CommonJS build has require.
    esbuildOptions(options, context) {
      if (context.format === 'cjs') options.logOverride = { ...options.logOverride, 'empty-import-meta': 'silent' };
    },
  }),
  // The `fw` binary (package.json "bin"): an ES module run by node, with no types of its own.
  library({ entry: { 'bin/fw': 'src/bin/fw.ts' }, format: ['esm'], dts: false }),
];
