import { library } from '../../tooling/tsup/library.mjs';

// The demo is a program, not a library: ESM only, no declarations, one file per entry. Its fw
// packages and libraries stay imports, loaded from node_modules as a user's program loads them
// (bundled, the packages' CommonJS code would meet ESM's missing `require`).
export default library({ entry: ['src/main.ts', 'src/tour.ts', 'src/app.ts'], format: ['esm'], dts: false, clean: true, skipNodeModulesBundle: true });
