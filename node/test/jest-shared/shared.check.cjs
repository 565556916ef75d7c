// Run by test/runners.test.mjs: each test its own part of the run's shared server; one leaves a step unused and
// must fail after it.
const { useCuecardShared } = require('cuecard/jest');

const cuecard = useCuecardShared();

async function chat(shared, text) {
  const response = await fetch(`${shared.openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] }),
  });
  return (await response.json()).choices[0].message.content;
}

test('uses its steps', async () => {
  await cuecard.shared.load({ cuecard: 1, routes: [{ steps: [{ text: 'one' }, { text: 'two' }] }] });
  expect([await chat(cuecard.shared, 'a'), await chat(cuecard.shared, 'b')]).toEqual(['one', 'two']);
  expect((await cuecard.shared.journal()).count).toBe(2);
});

test('has its own journal', async () => {
  await cuecard.shared.load({ cuecard: 1, routes: [{ steps: [{ text: 'own' }] }] });
  expect(await chat(cuecard.shared, 'c')).toBe('own');
  expect((await cuecard.shared.entries()).map((e) => e.request.messages[0].content[0].text)).toEqual(['c']);
});

test('leaves a shared step unused', async () => {
  await cuecard.shared.load({ cuecard: 1, routes: [{ steps: [{ text: 'never asked' }] }] });
});
