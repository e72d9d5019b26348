// Shared tsup settings: ESM first, CJS beside it, type declarations for both.
import { defineConfig } from 'tsup';

/** @param {import('tsup').Options} [overrides] */
export function library(overrides = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: false,
    sourcemap: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    ...overrides,
  });
}
