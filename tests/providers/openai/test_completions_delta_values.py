"""Chat Completions delta fields whose value is no text, in every state of the decoder.

``content``, the reasoning fields and ``refusal`` are text only when they are non-empty
strings. A server that sends anything else there (a number, a list, an object, ``true``,
``null``, ``""``) sends no text: the events and the message are those of the same stream
without that chunk, whether a text block is open (the fast path's state), a thinking block
is, or nothing is yet.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions import Decoder

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="m", api="openai-completions", provider="openai")
FIELDS = ["content", "reasoning_content", "reasoning", "reasoning_text", "refusal"]
NOT_TEXT = [5, 0, ["x"], [], {"text": "x"}, {}, True, False, None, ""]


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": "r", "model": "m", "choices": [{"index": 0, "delta": fields,
                                                  "finish_reason": finish}]}  # fmt: skip


def replay(chunks: list[dict[str, Any]]) -> tuple[list[Any], Any]:
    """Every event (as ``(type, index, delta)``) and the final message (but its time)."""
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    events = [e for c in chunks for e in decoder.feed(c)]
    events += decoder.finish(saw_done=True)
    seen = [(e.type, getattr(e, "content_index", None), getattr(e, "delta", None)) for e in events]
    return seen, builder.message.model_dump(exclude={"timestamp"})


BEFORE = {
    "nothing open": [],
    "text open": [delta(content="Hi")],
    "thinking open": [delta(reasoning_content="hmm")],
}
AFTER = [delta(content=" there"), delta(finish="stop")]


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("state", list(BEFORE))
def test_a_field_that_is_no_text_changes_nothing(state: str, field: str, value: Any) -> None:
    plain = replay([*BEFORE[state], *AFTER])
    assert replay([*BEFORE[state], delta(**{field: value}), *AFTER]) == plain
    assert (plain[1]["stopReason"], plain[1].get("errorMessage")) == ("stop", None)


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
def test_a_lone_content_that_is_no_text_is_not_the_text_blocks(value: Any) -> None:
    """The fast path's own shape: one choice, only ``content``, the text block open."""
    seen, message = replay([delta(content="Hi"), delta(content=value), delta(finish="stop")])
    assert seen == [
        ("text_start", 0, None),
        ("text_delta", 0, "Hi"),
        ("text_end", 0, None),
        ("done", None, None),
    ]
    assert message["content"] == [{"type": "text", "text": "Hi"}]
