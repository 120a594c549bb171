"""The Chat Completions-shaped decoders' text hot path gives what their general rules give.

OpenAI Chat Completions, Azure chat and Mistral take a chunk whose one choice carries only a
``content`` string straight to the builder while the text block is open. A chunk that also
carries a finish reason, usage, another choice index, an empty piece or a tool call must still
be read in full.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_sdk_azure.completions._decode import Decoder as AzureDecoder
from pi_sdk_mistral.conversations._decode import Decoder as MistralDecoder
from pi_sdk_openai.completions import Decoder as OpenAIDecoder

from pi_sdk import Model, TextContent, ToolCall
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="unit", api="openai-completions", provider="openai")
DECODERS: dict[str, Callable[[MessageBuilder], Any]] = {
    "openai": OpenAIDecoder,
    "azure": AzureDecoder,
    "mistral": MistralDecoder,
}


def chunk(delta: dict[str, Any], *, index: int = 0, **extra: Any) -> dict[str, Any]:
    choice = {"index": index, "delta": delta, **extra.pop("choice", {})}
    return {"id": "c1", "model": "served-model", "choices": [choice], **extra}


@pytest.mark.parametrize("name", list(DECODERS))
def test_text_chunks_of_every_shape(name: str) -> None:
    builder = MessageBuilder(MODEL)
    decoder = DECODERS[name](builder)
    usage = {"prompt_tokens": 9, "completion_tokens": 4}
    stream = [
        chunk({"role": "assistant", "content": "a"}),
        chunk({"content": "b"}),
        chunk({"content": ""}),
        chunk({"content": "x"}, index=1),  # another choice: not this reply
        chunk({"content": "c"}, usage=usage),
        chunk({"content": "d"}, choice={"content_filter_results": {}}),
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f"}}]}),
        chunk({"content": "e"}),
        chunk({"content": "f"}, choice={"finish_reason": "length"}),
    ]
    events: list[Any] = []
    for data in stream:
        events += decoder.feed(data)
    events += decoder.finish(saw_done=True)
    deltas = [(e.content_index, e.delta) for e in events if e.type == "text_delta"]
    assert deltas == [(0, "a"), (0, "b"), (0, "c"), (0, "d"), (2, "e"), (2, "f")]
    message = builder.message
    first, call, last = message.content
    assert isinstance(first, TextContent) and first.text == "abcd"
    assert isinstance(call, ToolCall) and call.name == "f"
    assert isinstance(last, TextContent) and last.text == "ef"
    assert message.stop_reason == "length"
    assert (message.usage.input, message.usage.output) == (9, 4)
    assert message.response_model == "served-model"
