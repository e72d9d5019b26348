import { library } from '../../tooling/tsup/library.mjs';

export default library({
  // The SDK packages are optional dependencies loaded only when needed: never bundle them.
  external: [/^@opentelemetry\//],
  esbuildOptions(options, context) {
    // In the CommonJS build, load them with require(): a native import() from CommonJS fails
    // under runners without ESM support in their VM (jest without --experimental-vm-modules).
    if (context.format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
  },
});
