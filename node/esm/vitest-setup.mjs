// `cuecard/vitest-setup`, a vitest `globalSetup`: one cuecard server for the whole run (in this process, on the
// addon's threads), its URL provided to every worker for `cuecardShared()`; `CUECARD_URL` names one started
// elsewhere instead.
import shared from '../lib/shared.js';

export default function setup(project) {
  const given = shared.givenUrl();
  if (given !== undefined) {
    project.provide('cuecardUrl', given);
    return undefined;
  }
  const server = shared.startSharedServer();
  project.provide('cuecardUrl', server.url);
  return () => server.stop();
}
