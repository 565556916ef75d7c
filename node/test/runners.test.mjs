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

// The shared server is the addon's; the wasm module has none (no sockets or threads).
const NAPI_ONLY = process.env.CUECARD_BACKEND === 'wasm' && 'the shared server needs the native addon';

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

test('vitest: 4 workers × 50 tests on one shared server, each seeing exactly its own requests', { skip: NAPI_ONLY }, () => {
  const { status, output } = run([VITEST, 'run', '--config', 'test/vitest-shared/shared.config.mjs']);
  assert.equal(status, 0, output);
  assert.match(output, /Test Files\s+4 passed \(4\)/, output);
  assert.match(output, /Tests\s+200 passed \(200\)/, output);
  console.log('vitest shared server: 200 passed, 0 failed');
});

test('jest: shared-server tests on the run\'s server, an unused step failing its test', { skip: NAPI_ONLY }, () => {
  const { status, output } = run([JEST, '--ci', '--config', 'test/jest-shared/jest.config.cjs']);
  assert.notEqual(status, 0, output);
  assert.match(output, /Tests:\s+1 failed, 2 passed, 3 total/, output);
  assert.match(output, /leaves a shared step unused[\s\S]*script_fully_used\(\) failed/, output);
});

test('a per-test mock with an unused step fails its test in vitest, jest and node:test', () => {
  const vitest = run([VITEST, 'run', '--config', 'test/vitest/failing.config.mjs']);
  assert.notEqual(vitest.status, 0);
  assert.match(vitest.output, /script_fully_used\(\) failed/);
  if (!NAPI_ONLY) {
    // The per-test mock's test and the shared one fail; the shared one with `strict: false` passes.
    assert.match(vitest.output, /Tests\s+2 failed \| 1 passed/, vitest.output);
    assert.match(vitest.output, /leaves a shared step unused[\s\S]*route 0 \(default\) step 0: text "never asked"/, vitest.output);
  }
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
