"""The Messages Decoder's delta hot path: what the builder refuses is still named as before."""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_anthropic.messages._decode import Decoder

from pi_sdk import Context, Model
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="claude-unit", api="anthropic-messages", provider="anthropic")


def decoder() -> Decoder:
    dec = Decoder(MessageBuilder(MODEL), Context(messages=[]), oauth=False)
    dec.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}})
    server = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}
    dec.feed({"type": "content_block_start", "index": 1, "content_block": server})
    return dec


def delta(index: Any, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def test_text_and_argument_deltas_of_open_and_skipped_blocks() -> None:
    dec = decoder()
    events = dec.feed(delta(0, type="text_delta", text="Hi"))
    assert [(e.type, e.delta) for e in events] == [("text_delta", "Hi")]
    assert dec.feed(delta(1, type="input_json_delta", partial_json='{"q":')) == []  # server tool
    assert dec.feed(delta(1, type="text_delta", text="x")) == []


@pytest.mark.parametrize(
    ("event", "needle"),
    [
        (delta(7, type="text_delta", text="x"), "content_block_delta for block 7, which is not"),
        (delta(7, type="input_json_delta", partial_json="{"), "block 7, which is not open"),
        (delta(0, type="input_json_delta", partial_json="{"), "toolcall data for block 0, a text"),
        (delta(0, type="text_delta", text=3), "delta 'text' is not a string"),
        (
            {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}},
            "missing 'index'",
        ),
    ],
)
def test_a_delta_the_builder_refuses_is_named(event: dict[str, Any], needle: str) -> None:
    with pytest.raises(ProviderError, match=needle):
        decoder().feed(event)
