// The action's main step (action.yml): fetch the release archive of this runner's platform, check its SHA-256,
// start `cuecard serve` in the background, wait until `cuecard health` says it answers, and export its URLs.
// Node's own modules only: an action runs from its checkout, with no npm install.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const input = (name) => (process.env[`INPUT_${name.toUpperCase()}`] || '').trim();
const append = (variable, line) => fs.appendFileSync(process.env[variable], `${line}\n`);

/** The release target of this runner. */
function target() {
  const targets = {
    'linux-x64': 'x86_64-unknown-linux-musl',
    'linux-arm64': 'aarch64-unknown-linux-musl',
    'darwin-x64': 'x86_64-apple-darwin',
    'darwin-arm64': 'aarch64-apple-darwin',
    'win32-x64': 'x86_64-pc-windows-gnu',
  };
  const found = targets[`${process.platform}-${process.arch}`];
  if (!found) throw new Error(`cuecard has no release for ${process.platform}-${process.arch}`);
  return found;
}

/** The workspace version of this action's checkout (Cargo.toml beside action.yml). */
function checkoutVersion() {
  const cargo = fs.readFileSync(path.join(__dirname, '..', 'Cargo.toml'), 'utf8');
  return /^version = "([^"]+)"/m.exec(cargo)[1];
}

async function bytesOf(where) {
  if (/^https?:\/\//.test(where)) {
    const reply = await fetch(where);
    if (!reply.ok) throw new Error(`GET ${where}: ${reply.status} ${reply.statusText}`);
    return Buffer.from(await reply.arrayBuffer());
  }
  return fs.readFileSync(where);
}

async function main() {
  const version = input('version') || checkoutVersion();
  const name = `cuecard-${version}-${target()}`;
  const extension = process.platform === 'win32' ? '.zip' : '.tar.gz';
  const repository = process.env.GITHUB_ACTION_REPOSITORY || process.env.GITHUB_REPOSITORY;
  const archive = input('archive') || `https://github.com/${repository}/releases/download/v${version}/${name}${extension}`;
  const data = await bytesOf(archive);
  const expected = (await bytesOf(`${archive}.sha256`)).toString().split(/\s+/)[0];
  const actual = crypto.createHash('sha256').update(data).digest('hex');
  if (expected !== actual) throw new Error(`${archive}: SHA-256 ${actual}, but its .sha256 says ${expected}`);
  const directory = fs.mkdtempSync(path.join(process.env.RUNNER_TEMP || os.tmpdir(), 'cuecard-'));
  const saved = path.join(directory, `${name}${extension}`);
  fs.writeFileSync(saved, data);
  // tar reads both forms on every runner (Windows' own tar is bsdtar, which reads zip archives).
  execFileSync('tar', ['-xf', saved, '-C', directory]);
  const bin = path.join(directory, name);
  const cuecard = path.join(bin, process.platform === 'win32' ? 'cuecard.exe' : 'cuecard');

  const port = input('port') || '8080';
  const args = ['serve', '--port', port];
  if (input('scenario')) args.push('--scenario', input('scenario'));
  if (input('args')) args.push(...input('args').split(/\s+/));
  const log = path.join(directory, 'serve.log');
  const out = fs.openSync(log, 'a');
  const server = spawn(cuecard, args, { detached: true, stdio: ['ignore', out, out] });
  server.unref();
  append('GITHUB_STATE', `pid=${server.pid}`);
  append('GITHUB_STATE', `log=${log}`);

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      execFileSync(cuecard, ['health', base, '--timeout-ms', '1000'], { stdio: 'ignore' });
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`cuecard serve did not answer on ${base} within 30 s:\n${fs.readFileSync(log, 'utf8')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  for (const [variable, value] of [
    ['CUECARD_URL', base],
    ['OPENAI_BASE_URL', `${base}/v1`],
    ['ANTHROPIC_BASE_URL', base],
    ['OLLAMA_HOST', base],
  ]) {
    append('GITHUB_ENV', `${variable}=${value}`);
  }
  append('GITHUB_OUTPUT', `base-url=${base}`);
  append('GITHUB_OUTPUT', `openai-base-url=${base}/v1`);
  append('GITHUB_PATH', bin);
  console.log(`cuecard ${version} serves on ${base} (log: ${log})`);
}

main().catch((error) => {
  console.log(`::error::${error.message}`);
  process.exitCode = 1;
});
