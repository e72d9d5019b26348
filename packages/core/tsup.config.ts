import { library } from '../../tooling/tsup/library.mjs';

// Two entries share their modules through chunks in both formats (splitting is on for CommonJS too),
// so `HTTPError` and the rest exist once whichever entry a program loads first.
export default library({ entry: ['src/index.ts', 'src/plugin.ts'], splitting: true });
