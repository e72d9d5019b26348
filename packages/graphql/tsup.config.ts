import { library } from '../../tooling/tsup/library.mjs';

// shims: `__dirname` in the ESM build, which finds the bundled playground files.
export default library({ shims: true });
