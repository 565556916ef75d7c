// One test's part of a shared cuecard server (`cuecardShared()` in vitest, `useCuecardShared()` in jest).
import type { Check } from './index.js';

/** A test's own mock on the run's shared server, under `/t/{id}/`: its own scenario, cursors and journal. */
export interface SharedTest {
  /** The test's id on the server (a digest of its file and names). */
  readonly id: string;
  /** `http://127.0.0.1:PORT/t/{id}`; SDKs take it with their usual suffix. */
  readonly baseURL: string;
  /** For `new OpenAI({ baseURL })` (ends in `/v1`). */
  readonly openaiBaseURL: string;
  /** For `new Anthropic({ baseURL })`. */
  readonly anthropicBaseURL: string;
  /** Whether `load` gave it a scenario of its own. */
  readonly loaded: boolean;
  /** Gives this test its own scenario (an object, or JSON/YAML text); its journal starts empty. */
  load(scenario: string | object): Promise<void>;
  /** The test's journal document: `count`, `counts`, `entries`, `unused_steps` (and `mcp` with MCP servers). */
  journal(): Promise<{ count: number; counts: Record<string, number>; entries: any[]; unused_steps: any[]; mcp?: any }>;
  /** The journal's entries. */
  entries(): Promise<any[]>;
  /** Runs checks as data on the server; the first that does not hold rejects with core's message. */
  check(...checks: Check[]): Promise<void>;
  /** The end-of-test check: every loaded step used and no unexpected request. */
  verify(): Promise<void>;
  /** Drops this test from the server. */
  drop(): Promise<void>;
}
