// Shared tsup settings: one CommonJS build per entry, with its type declarations. The ES module
// entries are thin wrappers over it, written after the build (es-wrappers.mjs), so that `import`,
// `require`, tsx, jest and bundlers all reach the same module: one instance of every class.
import { defineConfig } from 'tsup';

/** @param {import('tsup').Options} [overrides] */
export function library(overrides = {}) {
  const { esbuildOptions, ...rest } = overrides;
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['cjs'],
    dts: true,
    // The package's build script empties dist/ first: a package with several configs (an extra
    // entry, a command) builds them side by side, and a clean in one would race the others.
    clean: false,
    sourcemap: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    esbuildOptions(options, context) {
      // In the CommonJS build, optional modules loaded with import() are loaded with require():
      // a native import() from CommonJS fails under runners without ESM support in their VM
      // (jest without --experimental-vm-modules).
      if (context.format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
      esbuildOptions?.(options, context);
    },
    ...rest,
  });
}
