// Shared jest preset: ts-jest compiling each package's TypeScript to CommonJS for the tests.
// Sibling packages are imported by their public name and resolve to their built `dist`
// (turbo builds dependencies first), so tests exercise the published shape.
const path = require('node:path');

// Dependencies that ship ES modules only; jest (CommonJS, no --experimental-vm-modules) needs
// them compiled, so ts-jest transforms them like our own files.
const ESM_ONLY = ['jose'];
const esmOnly = `(?:\\.pnpm/(?:${ESM_ONLY.join('|')})@[^/]+/node_modules/)?(?:${ESM_ONLY.join('|')})`;

// Each package's `test/hostile/` holds its attack and timing suites (floods of connections, slow
// clients, latency, memory and throughput bounds): `jest` (the package's `test` script, run by the
// README's test command) leaves them out; `FW_JEST=hostile jest` (its `test:hostile` script, which
// CI runs too) runs them alone.
const HOSTILE = process.env.FW_JEST === 'hostile';

/** @param {string} dir the package directory (pass __dirname) */
module.exports = function preset(dir, overrides = {}) {
  const tsJestOptions = {
    tsconfig: {
      target: 'ES2022',
      module: 'commonjs',
      moduleResolution: 'node10',
      esModuleInterop: true,
      strict: true,
      isolatedModules: true,
      skipLibCheck: true,
      types: ['node', 'jest'],
    },
    // Type errors are the typecheck step's job (`pnpm typecheck`, run by CI, compiles every test and
    // type-level test file with tsc); here tests only need to run.
    diagnostics: false,
  };
  return {
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: HOSTILE ? ['<rootDir>/test/hostile/**/*.test.ts'] : ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    testPathIgnorePatterns: HOSTILE ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/test/hostile/'],
    moduleFileExtensions: ['ts', 'js', 'cjs', 'mjs', 'json'],
    transform: {
      '^.+\\.ts$': [require.resolve('ts-jest'), tsJestOptions],
      [`^.+/node_modules/${esmOnly}/.+\\.js$`]: [
        require.resolve('ts-jest'),
        { ...tsJestOptions, tsconfig: { ...tsJestOptions.tsconfig, allowJs: true } },
      ],
    },
    transformIgnorePatterns: [`/node_modules/(?!${esmOnly}/)`],
    // Sources import siblings with explicit `.js` extensions (NodeNext); map them back for ts-jest.
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    // A guard against a hang, not a speed bound: at a load average of 35 on 2 cores an ordinary
    // three-request test took over 20 s.
    testTimeout: 60000,
    // Reports servers, sockets and timers a test left open (and runs the files of a package in band).
    detectOpenHandles: true,
    ...overrides,
  };
};
