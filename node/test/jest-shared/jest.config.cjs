// For test/runners.test.mjs: jest's shared-server helpers, one server for the run from cuecard/jest-setup.
module.exports = {
  rootDir: '../..',
  testMatch: ['<rootDir>/test/jest-shared/*.check.cjs'],
  globalSetup: 'cuecard/jest-setup',
  globalTeardown: 'cuecard/jest-teardown',
  moduleNameMapper: { '^cuecard$': '<rootDir>/lib/index.js', '^cuecard/(.*)$': '<rootDir>/lib/$1.js' },
};
