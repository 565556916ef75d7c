// cuecard's vitest matchers and per-test mock, under vitest.
import { describe, expect, test, vi } from 'vitest';
import { MockModel } from 'cuecard';
import { cuecardMock } from 'cuecard/vitest';

describe('cuecard matchers on vitest', () => {
  test('pass and fail with the core\'s message; .not works', async () => {
    const mock = MockModel.thatResponds('Paris').thenResponds('unused');
    await mock.chat({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Capital of France?' }],
      tools: [{ name: 'lookup', parameters: { type: 'object' } }] });
    expect(mock).toHaveBeenCalledTimes(1);
    expect(mock).toHaveReceivedUserMessageContaining('France');
    expect(mock).toHaveReceivedSystemMessageContaining('terse');
    expect(mock).toHaveOfferedTool('lookup');
    expect(mock).not.toHaveReceivedUserMessageContaining('Spain');
    expect(mock).toHaveNoUnexpectedRequests();
    expect(mock).not.toHaveUsedAllSteps();
    expect(mock).toPassCheck({ check: 'has_model', model: 'gpt-4o' });
    expect(() => expect(mock).toHaveUsedAllSteps()).toThrow(/all_steps_used\(\) failed[\s\S]*step 1/);
    expect(() => expect(mock).toHaveBeenCalledTimes(3)).toThrow(/received_requests\(3\) failed/);
    // The declarations are checked too (tsc runs over this file): a misspelt matcher does not type-check.
    // @ts-expect-error toHaveUsedAllStepz is not a matcher
    expect(() => expect(mock).toHaveUsedAllStepz()).toThrow();
  });

  test('toHaveBeenCalledTimes keeps its meaning on spies', () => {
    const spy = vi.fn();
    spy();
    expect(spy).toHaveBeenCalledTimes(1);
    expect(() => expect(spy).toHaveBeenCalledTimes(2)).toThrow();
  });

  test('the per-test mock is fresh and passes when its script was used', async () => {
    const mock = cuecardMock().thenResponds('only step');
    expect((await mock.chat('hi')).message.text).toBe('only step');
  });

  test('the per-test mock with strict: false allows unused steps', () => {
    cuecardMock({ strict: false }).thenResponds('never asked');
  });
});
