// Starts the real `cuecard serve` binary and loads a fresh script per test through the admin endpoints.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const binary = process.env.CUECARD_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'debug', 'cuecard');

// `tls: true` serves https:// and wss:// too, with a test CA written to a temporary file (`ca`, its PEM).
export async function startServer({ tls = false } = {}) {
  const caFile = tls ? path.join(mkdtempSync(path.join(tmpdir(), 'cuecard-tls-')), 'ca.pem') : undefined;
  const args = ['serve', '--port', '0', '--instant', ...(tls ? ['--tls', caFile] : [])];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const urls = [];
  for await (const line of lines) {
    urls.push(line.trim().split(/\s+/).pop());
    if (urls.length === 2) break;
  }
  const [openaiURL, anthropicURL] = urls;
  const admin = async (method, route, body) => {
    const response = await fetch(anthropicURL + route, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${route}: ${JSON.stringify(json)}`);
    return json;
  };
  return {
    openaiURL,
    anthropicURL,
    ca: tls ? readFileSync(caFile, 'utf8') : undefined,
    load: (scenario) => admin('PUT', '/_cuecard/scenario', scenario),
    entries: async () => (await admin('GET', '/_cuecard/journal')).entries,
    journal: () => admin('GET', '/_cuecard/journal'),
    outcomes: async () => (await admin('GET', '/_cuecard/journal')).entries.map((e) => e.outcome),
    stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }),
  };
}

export const scenario = (...steps) => ({ cuecard: 1, routes: [{ steps }] });
