// Run by test/runners.test.mjs in a child jest: a per-test mock with an unused step must fail its test.
const { useCuecardMock } = require('cuecard/jest');

const cuecard = useCuecardMock();
test('leaves a step unused', () => {
  cuecard.mock.thenResponds('never asked');
});
