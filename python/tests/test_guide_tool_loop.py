"""The book's guide "Test a tool loop": a hand-written agent loop over the official openai SDK, against a script
that calls a tool, then a second tool with invalid JSON arguments, then answers. CI runs it."""
import json

import pytest

import cuecard

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


# ANCHOR: code
# The code under test: call the model, run the tools it asks for, send the results back, until it answers.
def run_agent(client, question: str, max_turns: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_turns):
        reply = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[WEATHER_TOOL])
        message = reply.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            try:
                city = json.loads(call.function.arguments)["city"]
                result = {"city": city, "celsius": 22}
            except (json.JSONDecodeError, KeyError) as error:  # a model's bad arguments go back as an error
                result = {"error": f"bad arguments: {error}"}
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    raise RuntimeError("the agent did not finish")
# ANCHOR_END: code


# ANCHOR: test
def test_the_loop_sends_each_tool_result_back_and_survives_invalid_arguments():
    mock = (cuecard.MockModel.that_calls_tool("get_weather", {"city": "Paris"})
            .then_calls_tool("get_weather", '{"city": "Lyon"')  # a string is the raw text: invalid JSON on purpose
            .then_responds("Paris is 22 °C; I could not read Lyon."))
    client = cuecard.openai_client(mock)

    assert run_agent(client, "Weather in Paris and Lyon?") == "Paris is 22 °C; I could not read Lyon."

    # What the loop sent: the first result, then the error for the bad arguments, each after its call.
    second, third = mock.requests()[1], mock.requests()[2]
    assert json.loads(cuecard.message_text(second["messages"][-1])) == {"city": "Paris", "celsius": 22}
    assert "bad arguments" in cuecard.message_text(third["messages"][-1])
    assert [m["role"] for m in third["messages"]] == ["user", "assistant", "tool", "assistant", "tool"]
    cuecard.assert_that(mock).received_requests(3).last_request().offers_tool("get_weather")
    cuecard.assert_that(mock).script_fully_used()


def test_a_model_that_never_stops_calling_tools_is_cut_off():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{
        "on_exhausted": "cycle", "steps": [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}]}]})
    client = cuecard.openai_client(mock)

    with pytest.raises(RuntimeError, match="the agent did not finish"):
        run_agent(client, "Weather?", max_turns=4)
    cuecard.assert_that(mock).received_requests(4)
# ANCHOR_END: test
