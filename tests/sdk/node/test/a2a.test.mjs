// The official A2A JavaScript client (@a2a-js/sdk 1.x), unmodified, against an agent scripted in a scenario on
// `cuecard serve` (issue #53): it resolves the hybrid card (the agent's URL with a trailing slash: the card path
// resolves relative to it), sends a message and streams another, reads the task and cancels an interrupted one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { startServer } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const agents = { agents: [{ name: 'researcher', steps: [
  { match: { text: 'weather' }, text: 'Sunny in Paris, 22 degrees.' },
  { text: 'Rain in Oslo.' },
  { state: 'input_required', status: 'Which city?' },
] }] };

const user = (text) => ({ messageId: `m-${text}`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] });
const text = (parts) => parts.map((p) => p.content?.value ?? '').join('');

test('@a2a-js/sdk sends, streams, gets and cancels against the scripted agent', async () => {
  await server.load({ cuecard: 1, a2a: agents });
  const client = await new ClientFactory().createFromUrl(`${server.anthropicURL}/a2a/researcher/`);
  // sendMessage gives a Task or a Message (SendMessageResult).
  const task = await client.sendMessage({ message: user('weather in Paris?') });
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(text(task.artifacts[0].parts), 'Sunny in Paris, 22 degrees.');

  const events = [];
  for await (const event of client.sendMessageStream({ message: user('Oslo?') })) events.push(event.payload);
  assert.equal(events[0].$case, 'task');
  assert.equal(events.at(-1).$case, 'statusUpdate');
  assert.equal(events.at(-1).value.status.state, TaskState.TASK_STATE_COMPLETED);
  const chunks = events.filter((e) => e.$case === 'artifactUpdate').map((e) => text(e.value.artifact.parts));
  assert.equal(chunks.join(''), 'Rain in Oslo.');

  const waiting = await client.sendMessage({ message: user('forecast') });
  assert.equal(waiting.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const got = await client.getTask({ id: waiting.id });
  assert.equal(text(got.status.message.parts), 'Which city?');
  const canceled = await client.cancelTask({ id: waiting.id });
  assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED);

  const entries = (await server.journal()).a2a.entries;
  assert.deepEqual(entries.filter((e) => e.method !== 'card').map((e) => [e.method, e.version]),
    [['SendMessage', '1.0'], ['SendStreamingMessage', '1.0'], ['SendMessage', '1.0'], ['GetTask', '1.0'], ['CancelTask', '1.0']]);
});
