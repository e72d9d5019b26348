const preset = require('../../tooling/jest/preset.cjs');

// The tests' server-sent events client (`eventsource`, and its parser) ships ES modules only: jest
// runs CommonJS, so ts-jest compiles those two as the preset compiles its own ES-only dependencies.
const ESM_ONLY = '(?:\\.pnpm/(?:eventsource|eventsource-parser)@[^/]+/node_modules/)?(?:eventsource|eventsource-parser)';
const config = preset(__dirname, { testTimeout: 60000 });
const [tsJest, tsJestOptions] = Object.values(config.transform)[0];

module.exports = {
  ...config,
  transform: {
    ...config.transform,
    [`^.+/node_modules/${ESM_ONLY}/.+\\.js$`]: [tsJest, { ...tsJestOptions, tsconfig: { ...tsJestOptions.tsconfig, allowJs: true } }],
  },
  // One pattern: a file matching any ignore pattern is not transformed.
  transformIgnorePatterns: config.transformIgnorePatterns.map((pattern) => pattern.replace('/node_modules/(?!', `/node_modules/(?!${ESM_ONLY}/|`)),
};
