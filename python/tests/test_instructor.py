"""instructor (which pins a jiter that openai 3.x cannot share, so it runs beside the httpx-era SDKs) patches the
official openai client, in-process through the cuecard transport: a `response_model` is parsed from an output
that `{"generate": "output"}` drew from the schema instructor sent, in its TOOLS mode and in its JSON_SCHEMA mode."""
import pydantic
import pytest

import cuecard

instructor = pytest.importorskip("instructor")


class Invoice(pydantic.BaseModel):
    number: str = pydantic.Field(pattern=r"^INV-\d{4}$")
    total_cents: int = pydantic.Field(ge=0, le=1_000_000)
    paid: bool
    lines: list[str] = pydantic.Field(min_length=1, max_length=3)


@pytest.mark.parametrize("mode", [instructor.Mode.TOOLS, instructor.Mode.JSON_SCHEMA])
def test_a_response_model_parses_a_generated_output(mode):
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "seed": 3, "routes": [{"steps": [
        {"generate": "tool_calls"} if mode == instructor.Mode.TOOLS else {"generate": "output"}]}]})
    client = instructor.from_openai(cuecard.openai_client(mock, max_retries=0), mode=mode)
    invoice = client.chat.completions.create(model="gpt-4o", response_model=Invoice, max_retries=0,
                                             messages=[{"role": "user", "content": "Extract the invoice."}])
    assert isinstance(invoice, Invoice)
    assert invoice.number.startswith("INV-") and 1 <= len(invoice.lines) <= 3
    [entry] = mock.entries()
    assert entry["outcome"] == "answered"
