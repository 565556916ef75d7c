// The test-runner integrations, each in a child process of its runner: vitest's and jest's suites pass, and in
// vitest, jest and node:test a per-test mock with an unused step fails its test with the core's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cuecardMock } from 'cuecard';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const JEST = fileURLToPath(new URL('../node_modules/jest/bin/jest.js', import.meta.url));

function run(args) {
  // Without NODE_TEST_CONTEXT, a child `node --test` reports and exits as a run of its own.
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { status: child.status, output: child.stdout + child.stderr };
}

test('vitest: the matchers and the per-test mock', () => {
  const { status, output } = run([VITEST, 'run']);
  assert.equal(status, 0, output);
  const passed = output.match(/Tests\s+(\d+) passed/);
  assert.ok(passed && Number(passed[1]) >= 4, output);
  console.log(`vitest: ${passed[1]} passed, 0 failed`);
});

test('jest: the matchers and the per-test mock', () => {
  const { status, output } = run([JEST, '--ci']);
  assert.equal(status, 0, output);
  const passed = output.match(/Tests:\s+(\d+) passed/);
  assert.ok(passed && Number(passed[1]) >= 4, output);
  console.log(`jest: ${passed[1]} passed, 0 failed`);
});

test('a per-test mock with an unused step fails its test in vitest, jest and node:test', () => {
  const vitest = run([VITEST, 'run', '--config', 'test/vitest/failing.config.mjs']);
  assert.notEqual(vitest.status, 0);
  assert.match(vitest.output, /script_fully_used\(\) failed/);
  const jest = run([JEST, '--ci', '--testMatch', '<rootDir>/test/jest/**/*.check.cjs']);
  assert.notEqual(jest.status, 0);
  assert.match(jest.output, /script_fully_used\(\) failed/);
  const nodeTest = run(['--test', 'test/node-test/per-test-fails.check.mjs']);
  assert.notEqual(nodeTest.status, 0);
  assert.match(nodeTest.output, /script_fully_used\(\) failed/);
});

test('node:test: a per-test mock whose script was used passes', async (t) => {
  const mock = cuecardMock(t).thenResponds('used');
  assert.equal((await mock.chat('hi')).message.text, 'used');
});
