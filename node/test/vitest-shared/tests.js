// Fifty tests for one file: each loads its own scenario on the shared server through cuecardShared(), calls it
// with the official openai SDK, and finds exactly its own requests in its journal while the other workers' tests
// run at the same time.
import { expect, inject, test } from 'vitest';
import OpenAI from 'openai';
import { cuecardShared } from 'cuecard/vitest';

export function sharedServerTests(file) {
  for (let n = 0; n < 50; n++) {
    test(`file ${file} test ${n} sees exactly its own requests`, async () => {
      const shared = cuecardShared();
      expect(shared.baseURL).toBe(`${inject('cuecardUrl')}/t/${shared.id}`);
      const calls = 1 + (n % 3);
      await shared.load({ cuecard: 1, routes: [{ steps: Array.from({ length: calls }, (_, i) => ({ text: `answer ${file}.${n}.${i}` })) }] });
      const client = new OpenAI({ baseURL: shared.openaiBaseURL, apiKey: 'test', maxRetries: 0 });
      for (let i = 0; i < calls; i++) {
        const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `file ${file} test ${n} call ${i}` }] });
        expect(reply.choices[0].message.content).toBe(`answer ${file}.${n}.${i}`);
      }
      const journal = await shared.journal();
      expect(journal.count).toBe(calls);
      expect(journal.entries.map((e) => e.request.messages[0].content[0].text)).toEqual(
        Array.from({ length: calls }, (_, i) => `file ${file} test ${n} call ${i}`),
      );
      expect(journal.unused_steps).toEqual([]);
      await shared.check({ check: 'received_requests', times: calls });
      await expect(shared.check({ check: 'received_requests', times: calls + 1 })).rejects.toThrow(/received_requests/);
    });
  }
}
