module.exports = require('./jest/preset.cjs')(__dirname, { testMatch: ['<rootDir>/test/**/*.test.ts'] });
