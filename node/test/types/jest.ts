// The jest matchers' typings on @jest/globals' expect.
import { expect, test } from '@jest/globals';
import { MockModel } from 'cuecard';
import { useCuecardMock } from 'cuecard/jest';

const cuecard = useCuecardMock({ strict: false });
test('typed', async () => {
  const mock: MockModel = cuecard.mock;
  expect(mock).toHaveUsedAllSteps();
  expect(mock).not.toHaveReceivedUserMessageContaining('x', { request: 0 });
  expect(mock).toPassCheck({ check: 'has_model', model: 'm' });
});
