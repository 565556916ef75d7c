// The matchers `cuecard/vitest` and `cuecard/jest` add to `expect`.
import type { AnswerFaultKind, Check } from './index.js';

/** The matchers added to `expect`. `toHaveBeenCalledTimes(n)` is also extended (on a MockModel: it received `n`
 * requests; on a spy: its usual meaning); its type is the runner's own. */
export interface CuecardMatchers<R = unknown> {
  toHaveReceivedRequests(times: number): R;
  /** The last request's last user message contains `text` (`request`: `'only'` or a journal index instead). */
  toHaveReceivedUserMessageContaining(text: string, options?: { request?: 'last' | 'only' | number }): R;
  toHaveReceivedSystemMessageContaining(text: string, options?: { request?: 'last' | 'only' | number }): R;
  toHaveOfferedTool(name: string, options?: { request?: 'last' | 'only' | number }): R;
  toHaveUsedAllSteps(): R;
  toHaveNoUnexpectedRequests(): R;
  /** No wire request broke a rule of the real API (the `contracts` setting). */
  toHaveNoContractViolations(): R;
  /** Every step used and no request beyond the script. */
  toHaveUsedScriptFully(): R;
  toHaveRetried(operation: string, times: number): R;
  /** The MCP tool was called (`times` exactly, on `server`, with calls whose arguments contain `arguments`). */
  toHaveCalledMcpTool(tool: string, options?: { server?: string; times?: number; arguments?: Record<string, unknown>; inputResponses?: Record<string, unknown> }): R;
  /** No MCP message went beyond the scenario. */
  toHaveNoUnexpectedMcpCalls(): R;
  /** A batch (the latest one made, unless `batch` names one) held exactly `requests` requests. */
  toHaveBatchHeld(requests: number, batch?: string): R;
  /** Every line of a batch (the latest one made, unless `batch` names one) was answered by a step. */
  toHaveAnsweredEveryBatchLine(batch?: string): R;
  toHaveReceivedSocketEvent(type: string, fields?: Record<string, unknown>): R;
  toHaveSentSocketEvent(type: string, fields?: Record<string, unknown>): R;
  /** Answers were made faulty with `kind` (any when omitted), and the code went on past each to a clean answer. */
  toHaveRecoveredFromAnswerFault(kind?: AnswerFaultKind): R;
  /** Any check of the core as data. */
  toPassCheck(check: Check): R;
}

export type MatcherResult = { pass: boolean; message: () => string };
export declare const matchers: { [K in keyof CuecardMatchers | 'toHaveBeenCalledTimes']: (received: unknown, ...args: any[]) => MatcherResult };
