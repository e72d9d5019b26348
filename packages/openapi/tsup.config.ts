import { library } from '../../tooling/tsup/library.mjs';

// shims: `__dirname`/`__filename` in the ESM build, which find the bundled docs files and load
// the optional valibot converter.
export default library({ shims: true });
