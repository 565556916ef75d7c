// The book's example (browser): cuecard on the wasm module, and the official openai SDK streaming a scripted answer
// into the page through cuecard's in-process fetch. CI runs it in headless Chromium (chromium.check.mjs).
import OpenAI from 'openai';
import { load } from 'cuecard/browser';

export async function streamInto(element) {
  const cuecard = await load(); // instantiates cuecard_wasm_bg.wasm, next to the bundle
  const mock = cuecard.MockModel.thatResponds('Hello from the browser, streamed word by word.');
  const client = new OpenAI({ ...cuecard.openaiOptions(mock), dangerouslyAllowBrowser: true });
  const stream = await client.chat.completions.create({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true,
  });
  for await (const chunk of stream) element.textContent += chunk.choices[0]?.delta?.content ?? '';
  cuecard.assertThat(mock).receivedRequests(1).lastRequest().hasModel('gpt-4o');
  return element.textContent;
}
