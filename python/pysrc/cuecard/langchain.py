"""A LangChain chat model backed by a cuecard `MockModel` (needs `langchain-core`).

    from cuecard.langchain import CuecardChatModel
    model = CuecardChatModel(mock=cuecard.MockModel.that_responds("Hello!"))
    model.invoke("Hi")           # AIMessage("Hello!")

`invoke` / `ainvoke` answer whole, `stream` / `astream` yield one chunk per word-like token (tool calls as
tool-call chunks), `bind_tools` offers tools in the request the mock journals, and `with_structured_output`
works through a scripted tool call named after the schema. Usage and finish reason are reported as LangChain's
`usage_metadata` and `response_metadata`.
"""
from __future__ import annotations

import json
from typing import Any, AsyncIterator, Iterator, Optional, Sequence

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from .errors import ProviderError
from .mock import MockModel

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool", "developer": "developer"}


def _content(message: BaseMessage) -> Any:
    if isinstance(message.content, str):
        return message.content
    parts = []
    for part in message.content:
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
        elif part.get("type") == "text":
            parts.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image_url":
            url = part["image_url"]["url"] if isinstance(part["image_url"], dict) else part["image_url"]
            parts.append({"type": "image", "url": url})
    return parts


def _request(model: str, messages: Sequence[BaseMessage], stop: Optional[list[str]], kwargs: dict[str, Any]) -> dict:
    converted = []
    for message in messages:
        item: dict[str, Any] = {"role": _ROLES.get(message.type, "user"), "content": _content(message)}
        if isinstance(message, AIMessage) and message.tool_calls:
            item["tool_calls"] = [{"id": c.get("id") or "", "name": c["name"], "arguments": json.dumps(c["args"])}
                                  for c in message.tool_calls]
        if isinstance(message, ToolMessage):
            item["tool_call_id"] = message.tool_call_id
        converted.append(item)
    request: dict[str, Any] = {"model": model, "messages": converted}
    tools = kwargs.get("tools") or []
    if tools:
        request["tools"] = [{"name": t["function"]["name"], "description": t["function"].get("description"),
                             "parameters": t["function"].get("parameters", {})} for t in tools]
    if stop:
        request["stop"] = stop
    operation = kwargs.get("operation")
    if operation:
        request["metadata"] = {"operation": operation}
    return request


def _usage(usage: Optional[dict]) -> Optional[dict]:
    if not usage:
        return None
    return {"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"]}


# The fields of a text message left at their defaults: building an AIMessage validates every field with pydantic,
# most of the adapter's cost per call.
_TEXT_DEFAULTS = dict(AIMessage(content="").__dict__)


def _text_message_built(fields: dict[str, Any]) -> AIMessage:
    """What `AIMessage(**fields)` makes for a text answer, without validating each field again (less than half the cost
    of pydantic's `model_copy(update=...)`): the defaults' values with fresh mutable ones, then `fields`, set on a
    new instance as pydantic itself stores them (`model_construct` does the same, with more work per field)."""
    message = AIMessage.__new__(AIMessage)
    values = dict(_TEXT_DEFAULTS)
    values.update(additional_kwargs={}, response_metadata={}, tool_calls=[], invalid_tool_calls=[])
    values.update(fields)
    object.__setattr__(message, "__dict__", values)
    object.__setattr__(message, "__pydantic_fields_set__", set(fields))
    object.__setattr__(message, "__pydantic_extra__", {})
    object.__setattr__(message, "__pydantic_private__", None)
    return message


def _text_message_validated(fields: dict[str, Any]) -> AIMessage:
    return AIMessage(**fields)


def _text_message_maker():
    """`_text_message_built` where it makes what AIMessage(**fields) makes with the installed pydantic and LangChain
    (checked once, at import), else AIMessage itself."""
    sample = {"content": "Hi", "response_metadata": {"finish_reason": "stop"}, "id": "chatcmpl-1",
              "usage_metadata": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}
    try:
        built, reference = _text_message_built(dict(sample)), AIMessage(**sample)
        same = (built == reference and built.model_dump() == reference.model_dump()
                and built.model_fields_set == reference.model_fields_set
                and built.__pydantic_extra__ == reference.__pydantic_extra__
                and built.__pydantic_private__ == reference.__pydantic_private__)
    except Exception:  # noqa: BLE001 - any failure means the shortcut does not fit this pydantic
        same = False
    return _text_message_built if same else _text_message_validated


_text_message = _text_message_maker()


def _message(response: dict) -> AIMessage:
    message = response["message"]
    # Only the fields that are set are passed: AIMessage validates (and back-fills) each one it is given.
    fields: dict[str, Any] = {
        "content": message.get("text") or "",
        "response_metadata": {"finish_reason": response.get("finish_reason"), "model_name": response.get("model"),
                              "id": response.get("id")},
        "id": response.get("id"),
    }
    calls = message.get("tool_calls")
    if calls:
        tool_calls, invalid = [], []
        for call in calls:
            try:
                tool_calls.append({"name": call["name"], "args": json.loads(call["arguments"]), "id": call["id"],
                                   "type": "tool_call"})
            except ValueError as error:
                invalid.append({"name": call["name"], "args": call["arguments"], "id": call["id"],
                                "error": str(error), "type": "invalid_tool_call"})
        fields["tool_calls"] = tool_calls
        if invalid:
            fields["invalid_tool_calls"] = invalid
    if message.get("thinking"):
        fields["additional_kwargs"] = {"reasoning_content": message["thinking"]}
    usage = _usage(response.get("usage"))
    if usage:
        fields["usage_metadata"] = usage
    if calls:
        return AIMessage(**fields)  # LangChain's validators normalise tool calls: let them run
    # A text answer: the same message AIMessage(**fields) builds (test_langchain.py compares the two).
    return _text_message(fields)


def _chunk(event: dict) -> Optional[AIMessageChunk]:
    kind = event["type"]
    if kind == "text_delta":
        return AIMessageChunk(content=event["text"])
    if kind == "thinking_delta":
        return AIMessageChunk(content="", additional_kwargs={"reasoning_content": event["text"]})
    if kind == "tool_call_delta":
        return AIMessageChunk(content="", tool_call_chunks=[{"name": event.get("_name"), "args": event["arguments"],
                                                              "id": event.get("_id"), "index": event["index"]}])
    if kind == "complete":
        response = event["response"]
        return AIMessageChunk(content="", usage_metadata=_usage(response.get("usage")),
                              response_metadata={"finish_reason": response.get("finish_reason"),
                                                 "model_name": response.get("model")})
    if kind == "error":
        raise ProviderError._from_core(event["error"])
    return None


class _Chunker:
    """Converts events to chunks; a tool call's id and name go on its first fragment only (LangChain concatenates
    them across chunks)."""

    def __init__(self) -> None:
        self.announced: set[int] = set()

    def __call__(self, event: dict) -> Optional[AIMessageChunk]:
        if event["type"] == "tool_call_delta" and event["index"] not in self.announced:
            self.announced.add(event["index"])
            event = {**event, "_name": event["name"], "_id": event["id"]}
        return _chunk(event)


class CuecardChatModel(BaseChatModel):
    """A LangChain chat model whose answers come from a cuecard script."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    mock: MockModel
    model_name: str = "cuecard-mock"

    @property
    def _llm_type(self) -> str:
        return "cuecard"

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                  run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any) -> ChatResult:
        response = self.mock.chat(_request(self.model_name, messages, stop, kwargs))
        return ChatResult(generations=[ChatGeneration(message=_message(response))])

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        chunker = _Chunker()
        for event in self.mock.iter_stream(_request(self.model_name, messages, stop, kwargs)):
            chunk = chunker(event)
            if chunk is None:
                continue
            if run_manager and isinstance(chunk.content, str) and chunk.content:
                run_manager.on_llm_new_token(chunk.content)
            yield ChatGenerationChunk(message=chunk)

    async def _astream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                       run_manager: Any = None, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        chunker = _Chunker()
        async for event in self.mock.astream(_request(self.model_name, messages, stop, kwargs)):
            chunk = chunker(event)
            if chunk is not None:
                yield ChatGenerationChunk(message=chunk)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any):
        return super().bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)
