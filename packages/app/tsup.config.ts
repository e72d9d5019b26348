import { library } from '../../tooling/tsup/library.mjs';

// `@fw/app/<package>` subpaths: each re-exports one scoped package whole (see package.json exports).
const SUBPATHS = ['core', 'graphql', 'grpc', 'middleware', 'openapi', 'tracing', 'validate'];

export default library({
  entry: { index: 'src/index.ts', ...Object.fromEntries(SUBPATHS.map((name) => [name, `src/reexport/${name}.ts`])) },
});
