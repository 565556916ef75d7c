'use strict';
// `cuecard/jest-teardown`, a jest `globalTeardown`: stops the server `cuecard/jest-setup` started.

module.exports = async function teardown() {
  globalThis.__cuecardSharedServer?.stop();
  delete globalThis.__cuecardSharedServer;
};
