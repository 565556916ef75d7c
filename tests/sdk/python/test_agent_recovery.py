"""An agent recovering from faults inside the answer (issue #54): the OpenAI Agents SDK runs 100 times against
`cuecard serve` with `answer_faults` drawing arguments that are not JSON at a seeded rate. The runs that get the fault
are the ones the core's draw gives (`tests/golden/agent-recovery-100.json`, also what the Node suite finds); in each,
the SDK sends its tool error back instead of crashing and the model's next answer ends the run."""
import asyncio
import json

from conftest import ROOT

GOLDEN = json.loads((ROOT / "tests" / "golden" / "agent-recovery-100.json").read_text())
# What the Python Agents SDK sends the model when a tool's arguments do not parse (the Node one says "An error
# occurred while parsing tool arguments. Please try again with valid JSON.").
TOOL_ERROR = "An error occurred while running the tool. Please try again."


def text(content) -> str:
    """A journaled message's content as text (a string, or text parts)."""
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def test_the_agents_sdk_recovers_from_seeded_invalid_arguments_in_the_golden_runs(cuecard):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    cuecard.load(GOLDEN["scenario"])
    called = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        called.append(city)
        return f"Sunny in {city}."

    async def runs():
        client = AsyncOpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
        agent = Agent(name="forecaster", instructions="Use the tool.", tools=[get_weather],
                      model=OpenAIChatCompletionsModel("gpt-4o", client))
        return [(await Runner.run(agent, "Weather in Paris?")).final_output for _ in range(GOLDEN["runs"])]

    assert asyncio.run(runs()) == ["It is sunny in Paris."] * GOLDEN["runs"]
    entries = cuecard.entries()
    assert len(entries) == 2 * GOLDEN["runs"]
    faulted = [e["index"] // 2 for e in entries if e.get("answer_fault") == "invalid_arguments"]
    assert faulted == GOLDEN["faulted_runs"]
    # The tool ran only where its arguments parsed; where they did not, the SDK sent its error back as the output.
    assert len(called) == GOLDEN["runs"] - len(faulted)
    for run in range(GOLDEN["runs"]):
        tool_output = entries[2 * run + 1]["request"]["messages"][-1]
        assert tool_output["role"] == "tool"
        assert text(tool_output["content"]) == (TOOL_ERROR if run in faulted else "Sunny in Paris.")
    checks = [{"check": "answer_fault", "kind": "invalid_arguments", "times": len(faulted), "recovered": True},
              {"check": "all_steps_used"}, {"check": "no_unexpected_requests"}]
    assert cuecard._call("POST", "/_cuecard/checks", json.dumps(checks).encode()) == {"ok": True, "ran": 3}
