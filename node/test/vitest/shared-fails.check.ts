// Run by test/runners.test.mjs in a child vitest with cuecard/vitest-setup: a shared test leaving a step unused
// must fail, with core's message from the server.
import { test } from 'vitest';
import { cuecardShared } from 'cuecard/vitest';

test('leaves a shared step unused', async () => {
  const shared = cuecardShared();
  await shared.load({ cuecard: 1, routes: [{ steps: [{ text: 'never asked' }] }] });
});

test('strict: false keeps it', async () => {
  const shared = cuecardShared({ strict: false });
  await shared.load({ cuecard: 1, routes: [{ steps: [{ text: 'never asked' }] }] });
});
