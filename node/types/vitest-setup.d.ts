// `cuecard/vitest-setup`: a vitest `globalSetup` starting one cuecard server for the run and providing its URL as
// `cuecardUrl` (read by `cuecardShared()`); `CUECARD_URL` names one started elsewhere instead.
export default function setup(project: { provide(key: 'cuecardUrl', value: string): void }): undefined | (() => void);
