import { library } from '../../tooling/tsup/library.mjs';

export default [
  // Two entries share their modules through a chunk (splitting is on for CommonJS too), so
  // `HTTPError` and the rest exist once whichever entry a program loads first.
  library({ entry: ['src/index.ts', 'src/plugin.ts'], splitting: true }),
  // The route matcher on its own, for the router benchmark only (`bench/router`): no export names
  // `dist/internal/matcher.js`, so it is not API; built apart, so the entries above load no more modules.
  library({ entry: { 'internal/matcher': 'src/internal/matcher.ts' }, format: ['esm'], dts: false }),
];
