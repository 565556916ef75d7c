"""pydantic-ai, unmodified, against `cuecard serve` with generated steps: `Agent(output_type=Model)` parses an
output drawn from the schema pydantic-ai sent (its `final_result` output tool), and a tool loop calls every tool
with arguments drawn from their schemas, with no hand-written JSON in the scenario."""
import pydantic
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


class Forecast(pydantic.BaseModel):
    city: str
    temperature_c: int = pydantic.Field(ge=-40, le=50)
    summary: str = pydantic.Field(max_length=40)
    rain: bool


def model(cuecard) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(base_url=cuecard.openai_url, api_key="test-key"))


def test_an_output_type_parses_an_output_drawn_from_its_schema(cuecard):
    cuecard.load({"cuecard": 1, "seed": 5, "routes": [{"steps": [{"generate": "output"}]}]})
    result = Agent(model(cuecard), output_type=Forecast).run_sync("Forecast for Paris?")
    assert isinstance(result.output, Forecast)
    assert -40 <= result.output.temperature_c <= 50 and len(result.output.summary) <= 40
    [entry] = cuecard.entries()
    assert [t["name"] for t in entry["request"]["tools"]] == ["final_result"]


def test_a_tool_loop_calls_every_tool_with_drawn_arguments_then_answers(cuecard):
    cuecard.load({"cuecard": 1, "seed": 5, "routes": [{"steps": [
        {"generate": "tool_calls", "tools": "all"}, {"generate": "output"}]}]})
    agent = Agent(model(cuecard), output_type=Forecast)
    seen = []

    @agent.tool_plain
    def get_temperature(city: str, unit: str = "c") -> int:
        seen.append(("get_temperature", city, unit))
        return 21

    @agent.tool_plain
    def get_rain(city: str, days: int) -> bool:
        seen.append(("get_rain", city, days))
        return False

    result = agent.run_sync("Forecast for Paris?")
    assert isinstance(result.output, Forecast)
    assert sorted(name for name, *_ in seen) == ["get_rain", "get_temperature"]
    assert all(isinstance(city, str) and city for _, city, _ in seen)
    entries = cuecard.entries()
    assert [e["outcome"] for e in entries] == ["answered", "answered"]
    assert [m["role"] for m in entries[1]["request"]["messages"]][-2:] == ["tool", "tool"]
