"""The book's guide "Structured output": code that parses a model's JSON into a pydantic model, against outputs
drawn from the schema it sent (`generate`), and against invalid JSON on purpose. CI runs it."""
import pydantic
import pytest

import cuecard


# ANCHOR: code
class Invoice(pydantic.BaseModel):
    number: str = pydantic.Field(pattern=r"^INV-\d{4}$")
    total_cents: int = pydantic.Field(ge=0)
    paid: bool


# The code under test: ask for an invoice as JSON; ask once more when the answer does not parse.
def extract_invoice(client, text: str) -> Invoice:
    response_format = {"type": "json_schema", "json_schema": {
        "name": "invoice", "strict": True, "schema": Invoice.model_json_schema() | {"additionalProperties": False}}}
    messages = [{"role": "user", "content": f"Extract the invoice: {text}"}]
    for _ in range(2):
        reply = client.chat.completions.create(model="gpt-4o", messages=messages, response_format=response_format)
        try:
            return Invoice.model_validate_json(reply.choices[0].message.content)
        except pydantic.ValidationError as error:
            messages += [{"role": "assistant", "content": reply.choices[0].message.content},
                         {"role": "user", "content": f"That was not valid: {error.error_count()} errors. Again."}]
    raise ValueError("no valid invoice after two answers")
# ANCHOR_END: code


# ANCHOR: test
def test_an_output_drawn_from_the_schema_parses():
    # `generate: output` answers with JSON valid against the response_format the request sent, seeded.
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "seed": 11, "routes": [{"steps": [
        {"generate": "output", "with": {"paid": True}}]}]})
    invoice = extract_invoice(cuecard.openai_client(mock), "INV-0042, 19.99 EUR, paid")

    assert invoice.paid is True and invoice.number.startswith("INV-")
    cuecard.assert_that(mock).last_request().has_json_schema_response_format("invoice")
    cuecard.assert_that(mock).script_fully_used()


def test_invalid_json_is_asked_again_then_parsed():
    mock = (cuecard.MockModel.that_responds('{"number": "INV-0042", "total_cents": ')  # cut JSON, on purpose
            .then_responds('{"number": "INV-0042", "total_cents": 1999, "paid": false}'))
    invoice = extract_invoice(cuecard.openai_client(mock), "INV-0042, 19.99 EUR")

    assert invoice == Invoice(number="INV-0042", total_cents=1999, paid=False)
    cuecard.assert_that(mock).received_requests(2).last_request().has_last_user_message_containing("not valid")


def test_two_bad_answers_give_up():
    mock = cuecard.MockModel.that_responds('{"number": "42"}').then_responds("not JSON at all")
    with pytest.raises(ValueError, match="no valid invoice"):
        extract_invoice(cuecard.openai_client(mock), "INV-0042")
    cuecard.assert_that(mock).received_requests(2).script_fully_used()
# ANCHOR_END: test
