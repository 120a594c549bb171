"""Chat Completions chunks the fast path must leave to the general rules, read the same both ways.

With the text block open, the decoder's fast path takes only a chunk whose one choice (index
0) carries a one-field ``{"content": <non-empty string>}`` delta, with no finish reason, no
usage (on the chunk or on the choice) and no error. Every other chunk, text included, goes to
the general rules; this stream has one of each kind, and the fast path and the general rules
(``_feed``) must give the same, explicitly stated, message.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.decoding import started
from pi_sdk_openai.completions._decode import Decoder

from pi_sdk import Model, TextContent, ToolCall
from pi_sdk.provider import ProviderError

MODEL = Model(id="m", api="openai-completions", provider="acme")
CALL = {
    "index": 0,
    "id": "call_1",
    "type": "function",
    "function": {"name": "f", "arguments": "{}"},
}


def _choice(delta: Any, **fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, **fields}]}


CHUNKS: list[tuple[dict[str, Any], int, bool]] = [  # chunk, usage.input after it, any events
    ({"id": "c1", "model": "m-1", **_choice({"role": "assistant", "content": "a"})}, 0, True),
    (_choice({"content": "b"}), 0, True),  # the fast path's
    (_choice({"content": ""}), 0, False),  # empty: nothing
    (_choice(None), 0, False),
    (_choice({"content": "c"}, usage={"prompt_tokens": 1, "completion_tokens": 1}), 1, True),
    ({**_choice({"content": "d"}), "usage": {"prompt_tokens": 2, "completion_tokens": 2}}, 2, True),
    (
        {
            "choices": [
                {"index": 1, "delta": {"content": "X"}},
                {"index": 0, "delta": {"content": "e"}},
            ]
        },
        2,
        True,
    ),
    (_choice({"content": "f", "tool_calls": [CALL]}), 2, True),
    (_choice({"content": "g"}), 2, True),
    (_choice({"content": "h"}, finish_reason="length"), 2, True),
    ({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}}, 9, False),
]


@pytest.mark.parametrize("general", [False, True])
def test_every_chunk_kind_reads_the_same_on_both_paths(general: bool) -> None:
    decoder, builder, feed = started(Decoder, MODEL, general=general)
    for chunk, usage, any_events in CHUNKS:
        assert bool(feed(chunk)) is any_events, chunk
        assert builder.message.usage.input == usage, chunk
    decoder.finish(saw_done=True)
    message = builder.message
    assert message.content == [
        TextContent(text="abcdef"),
        ToolCall(id="call_1", name="f", arguments={}),
        TextContent(text="gh"),
    ]
    assert (message.response_id, message.response_model) == ("c1", "m-1")
    assert message.stop_reason == "length" and message.raw_stop_reason == "length"
    assert (message.usage.input, message.usage.output) == (9, 3)


@pytest.mark.parametrize("general", [False, True])
def test_an_error_beside_text_raises_on_both_paths(general: bool) -> None:
    _, builder, feed = started(Decoder, MODEL, general=general)
    feed({"id": "c1", "model": "m-1", **_choice({"content": "a"})})
    with pytest.raises(ProviderError) as raised:
        feed({**_choice({"content": "b"}), "error": {"code": 500, "message": "upstream"}})
    assert str(raised.value) == "500: upstream"
    assert builder.message.content == [TextContent(text="a")]
