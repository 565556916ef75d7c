"""Core data as Python objects (`to_python`): names are interned once per process, data keeps its types. The test
wheel also checks every conversion of the whole suite against pythonize (`same_as_pythonize` in convert.rs)."""
import sys

import cuecard


def test_field_and_variant_names_are_the_interned_strings_and_are_reused():
    mock = cuecard.MockModel.that_responds("Hi there").then_repeats()
    first, second = mock.chat("one"), mock.chat("two")
    for key in first:
        assert key is sys.intern(key)
    assert [id(key) for key in first] == [id(key) for key in second]
    assert first["finish_reason"] is sys.intern("stop")  # a unit variant's name
    # A stream event is written as a map (its timing is flattened in): short map keys are kept too.
    events, again = mock.stream("three"), mock.stream("four")
    assert [id(key) for key in events[0]] == [id(key) for key in again[0]] == [id(key) for key in again[1]]
    for key in events[0]:
        assert key is sys.intern(key)


def test_long_and_dynamic_map_keys_come_through_as_they_are():
    long_key = "k" * 40
    mock = cuecard.MockModel.that_responds("ok")
    mock.chat({"messages": [{"role": "user", "content": "hi"}], "metadata": {"extra": {long_key: "v", "é": "w"}}})
    extra = mock.entries()[0]["request"]["metadata"]["extra"]
    assert extra == {long_key: "v", "é": "w"}


def test_data_keeps_its_types_and_dynamic_keys():
    mock = cuecard.MockModel.that_calls_tool("get_weather", {"city": "Paris", "days": 2, "hot": True, "ratio": 0.5})
    response = mock.chat({"messages": [{"role": "user", "content": "Weather?"}], "metadata": {"operation": "x"}})
    assert isinstance(response["created"], int) and not isinstance(response["created"], bool)
    call = response["message"]["tool_calls"][0]
    assert call["name"] == "get_weather"
    assert call["arguments"] == '{"city":"Paris","days":2,"hot":true,"ratio":0.5}'
    entry = mock.entries()[0]
    assert entry["request"]["metadata"] == {"operation": "x"}
    assert entry["index"] == 0 and type(entry["index"]) is int
