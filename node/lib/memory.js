'use strict';
// `MockMemory`: Cogitator's memory adapter double; every call is recorded. Results are plain objects; an unknown
// thread in `updateThread` throws `NotFoundError`. `cuecard/cogitator`'s `MockMemoryAdapter` wraps it in
// Cogitator's `MemoryResult` shape.

const native = require('./native.js');

/** An in-process conversation store that records every call. */
class MockMemory {
  #native = new native.NativeMemory();

  #call(method, args) {
    return JSON.parse(this.#native.call(method, args));
  }

  /** `"memory"`, as Cogitator's adapter says. */
  get provider() {
    return 'memory';
  }

  connect() {
    this.#call('connect', null);
  }

  disconnect() {
    this.#call('disconnect', null);
  }

  isConnected() {
    return this.#native.isConnected();
  }

  /** Creates a thread (`thread_N` unless `threadId` is given) and resets its entries. */
  createThread(agentId, metadata, threadId) {
    return this.#call('create_thread', { agent_id: agentId, metadata: metadata ?? null, thread_id: threadId ?? null });
  }

  /** The thread, or null. */
  getThread(threadId) {
    return this.#call('get_thread', { thread_id: threadId });
  }

  /** Shallow-merges metadata into the thread's; `NotFoundError` for an unknown thread. */
  updateThread(threadId, metadata) {
    return this.#call('update_thread', { thread_id: threadId, metadata });
  }

  deleteThread(threadId) {
    this.#call('delete_thread', { thread_id: threadId });
  }

  /** Adds an entry (`{thread_id, message, tool_calls?, tool_results?, token_count?, metadata?}`). */
  addEntry(entry) {
    return this.#call('add_entry', { entry });
  }

  /** A thread's entries (`{thread_id, limit?, before_ms?, after_ms?, include_tool_calls?}`). */
  getEntries(query) {
    return this.#call('get_entries', { query });
  }

  /** The entry, or null. */
  getEntry(entryId) {
    return this.#call('get_entry', { entry_id: entryId });
  }

  deleteEntry(entryId) {
    this.#call('delete_entry', { entry_id: entryId });
  }

  clearThread(threadId) {
    this.#call('clear_thread', { thread_id: threadId });
  }

  /** Every recorded call (`{method, args}`), or those of one method (`'createThread'` or `'create_thread'`). */
  calls(method) {
    return JSON.parse(this.#native.calls(method ?? null));
  }

  /** Clears everything and disconnects. */
  reset() {
    this.#native.reset();
  }
}

module.exports = { MockMemory };
