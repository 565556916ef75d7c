// cuecard's jest matchers and per-test mock, under jest.
const { MockModel } = require('cuecard');
const { useCuecardMock } = require('cuecard/jest');

describe('cuecard matchers on jest', () => {
  test('pass and fail with the core\'s message; .not works', async () => {
    const mock = MockModel.thatResponds('Paris').thenResponds('unused');
    await mock.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(mock).toHaveBeenCalledTimes(1);
    expect(mock).toHaveReceivedUserMessageContaining('France');
    expect(mock).not.toHaveReceivedUserMessageContaining('Spain');
    expect(mock).not.toHaveUsedAllSteps();
    expect(() => expect(mock).toHaveUsedScriptFully()).toThrow(/script_fully_used\(\) failed/);
  });

  test('toHaveBeenCalledTimes keeps its meaning on jest.fn()', () => {
    const spy = jest.fn();
    spy();
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe('the per-test mock', () => {
  const cuecard = useCuecardMock();

  test('is fresh in each test and passes when its script was used', async () => {
    cuecard.mock.thenResponds('first test');
    expect((await cuecard.mock.chat('hi')).message.text).toBe('first test');
  });

  test('starts empty again', () => {
    expect(cuecard.mock.requestCount).toBe(0);
  });
});
