import { library } from '../../tooling/tsup/library.mjs';

// The demo is a program, not a library: ESM only, no declarations, one file per entry.
export default library({ entry: ['src/main.ts', 'src/tour.ts', 'src/app.ts'], format: ['esm'], dts: false, clean: true });
