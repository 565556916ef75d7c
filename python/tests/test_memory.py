"""MockMemory from Python: Cogitator's adapter operations, recorded, with deterministic ids and times."""
import pytest

import cuecard


def test_threads_entries_and_the_call_log():
    memory = cuecard.MockMemory()
    memory.connect()
    thread = memory.create_thread("agent_1", {"topic": "weather"})
    assert (thread["id"], thread["metadata"]) == ("thread_1", {"topic": "weather"})
    assert memory.update_thread("thread_1", {"lang": "en"})["metadata"] == {"topic": "weather", "lang": "en"}
    with pytest.raises(cuecard.NotFoundError, match="Thread nope not found") as raised:
        memory.update_thread("nope", {})
    assert isinstance(raised.value, LookupError) and raised.value.context == {"thread_id": "nope"}
    for i in range(4):
        memory.add_entry({"thread_id": "thread_1", "message": {"role": "user", "content": f"m{i}"},
                          "tool_calls": [{"name": "t"}]})
    last_two = memory.get_entries({"thread_id": "thread_1", "limit": 2})
    assert [e["id"] for e in last_two] == ["entry_3", "entry_4"]
    assert "tool_calls" not in last_two[0]
    assert memory.get_entries({"thread_id": "thread_1", "limit": 1, "include_tool_calls": True})[0]["tool_calls"] == [{"name": "t"}]
    assert memory.get_thread("missing") is None
    assert len(memory.calls("add_entry")) == 4
    assert len(memory.calls("addEntry")) == 4, "Cogitator's camelCase name works too"
    assert memory.calls()[0] == {"method": "connect", "args": []}
    assert [c["method"] for c in memory.calls()[1:3]] == ["create_thread", "update_thread"]
    with pytest.raises(cuecard.InvalidArgumentError, match="is not a memory method"):
        memory.calls("addEntries")
    with pytest.raises(cuecard.InvalidArgumentError):
        memory.add_entry({"message": "no thread id"})
