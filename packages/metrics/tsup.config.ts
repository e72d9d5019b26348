import { library } from '../../tooling/tsup/library.mjs';

export default library({
  // The option names are an entry of their own (`@fw/metrics/options`) that createApp reads; split, so
  // they exist once whichever entry loads them first.
  entry: ['src/index.ts', 'src/options.ts'],
  splitting: true,
  // The SDK packages are optional dependencies loaded only when metrics start: never bundle them.
  external: [/^@opentelemetry\//],
});
