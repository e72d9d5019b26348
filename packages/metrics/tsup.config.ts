import { library } from '../../tooling/tsup/library.mjs';

export default library({
  // The SDK packages are optional dependencies loaded only when metrics start: never bundle them.
  external: [/^@opentelemetry\//],
});
