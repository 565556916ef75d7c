'use strict';
// `cuecard/jest-setup`, a jest `globalSetup`: one cuecard server for the whole run (in jest's parent process, on
// the addon's threads), its URL handed to the workers as `CUECARD_URL` (they start after it and inherit it);
// `cuecard/jest-teardown` stops it. A `CUECARD_URL` already set names a server started elsewhere instead.

const shared = require('./shared.js');

module.exports = async function setup() {
  if (shared.givenUrl() !== undefined) return;
  const server = shared.startSharedServer();
  process.env.CUECARD_URL = server.url;
  globalThis.__cuecardSharedServer = server;
};
