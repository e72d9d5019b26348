// House rules that a tool checks: package boundaries, type-only imports, no console in library
// code, promise hygiene. Type-aware (typescript-eslint's project service), so it reads each
// package's own tsconfig.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PROTOCOL_PACKAGES = ['middleware', 'validate', 'graphql', 'grpc', 'tracing', 'metrics', 'openapi'];
// Connect and gRPC-Web serve @fw/grpc's generated protos: the one package built on another protocol package.
const ALL_PACKAGES = ['core', ...PROTOCOL_PACKAGES, 'connect', 'app'];

/** Imports a package's source may not make: siblings' internals always, and siblings at all where the design forbids it. */
function boundaries(pkg) {
  const patterns = [
    {
      group: ['@fw/*/src', '@fw/*/src/**', '@fw/*/dist', '@fw/*/dist/**'],
      message: 'Import a sibling package by its public name only.',
    },
    {
      group: ALL_PACKAGES.filter((other) => other !== pkg).map((other) => `**/${other}/src/**`),
      message: 'No relative imports into another package.',
    },
  ];
  if (pkg === 'core') {
    patterns.push({ group: ['@fw/*'], message: '@fw/core imports none of the fw packages.' });
  } else if (PROTOCOL_PACKAGES.includes(pkg)) {
    patterns.push({
      group: ALL_PACKAGES.filter((other) => other !== 'core').map((other) => `@fw/${other}`),
      message: 'Protocol and feature packages import only @fw/core; @fw/app wires them together.',
    });
  } else if (pkg === 'connect') {
    patterns.push({
      group: ALL_PACKAGES.filter((other) => !['core', 'grpc', 'connect'].includes(other)).map((other) => `@fw/${other}`),
      message: '@fw/connect imports only @fw/core and @fw/grpc (whose generated protos it serves); @fw/app wires it.',
    });
  }
  return { 'no-restricted-imports': ['error', { patterns }] };
}

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/test-output/**',
      '**/coverage/**',
      '**/*.d.ts',
      '**/*.d.mts',
      'bench/**',
      '**/assets/**',
      '**/jest.config.cjs',
      'tooling/jest/**',
      'tooling/tsup/**',
      '**/tsup.config.ts',
      // Compiled on purpose with type errors by the type-level tests.
      'packages/validate/test/fixtures/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-floating-promises': 'error',
      // Async functions without await are how an interface that may be backed by I/O is written.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
    },
  },
  {
    // Tests throw hostile values and poke at untyped wire data on purpose.
    files: ['**/*.test.ts', '**/test/**/*.ts', 'tooling/**/*.ts'],
    rules: {
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  {
    // Generated typed clients start with `@ts-nocheck -- <why>`: a consumer's compiler checks the
    // calls only (their own code is type-checked by the tests that emit them, the line taken out).
    files: ['apps/demo/src/client.ts', 'packages/app/test/fixtures/client/*-client.ts'],
    rules: { '@typescript-eslint/ban-ts-comment': ['error', { 'ts-nocheck': 'allow-with-description' }] },
  },
  ...ALL_PACKAGES.map((pkg) => ({ files: [`packages/${pkg}/src/**/*.ts`], rules: boundaries(pkg) })),
  {
    // Library code reports through the app's logger, never straight to the console.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/**/*.test.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // The one default logger every package falls back to writes to stderr.
    files: ['packages/core/src/internal/logging.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
);
