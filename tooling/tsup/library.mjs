// Shared tsup settings: ESM first, CJS beside it, type declarations for both.
import { defineConfig } from 'tsup';

/** @param {import('tsup').Options} [overrides] */
export function library(overrides = {}) {
  const { esbuildOptions, ...rest } = overrides;
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
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
