"""The exact text of a thinking block's ``reasoning_details`` signature on Chat Completions.

The merged entries become the block's ``thinking_signature`` as JSON with non-ASCII text kept
(not ``\\u`` escapes), as pi-ai 1.6 writes it: the text is stored in sessions and compared on
replay. Both ways a signature is written give the same text: entries that arrive while the
thinking block is open (written when it ends) and entries that arrive after it ended (written
when the reply ends). A consumer reading the block at its ``thinking_end`` (the proxy sends
the partial message with each event) sees the same text there.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_openai.completions import Decoder

from pi_sdk import Model, ThinkingContent
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="m", api="openai-completions", provider="openai")
DETAIL = {"type": "reasoning.text", "text": "Überlegung 考え", "signature": "sïg", "index": 0}
TEXT = '[{"type": "reasoning.text", "text": "Überlegung 考え", "signature": "sïg", "index": 0}]'


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": "r", "model": "m", "choices": [{"index": 0, "delta": fields,
                                                  "finish_reason": finish}]}  # fmt: skip


ORDERS = {
    "while the block is open": [
        delta(reasoning_content="hmm"),
        delta(reasoning_details=[DETAIL]),
        delta(content="Hi"),
        delta(finish="stop"),
    ],
    "after the block ended": [
        delta(reasoning_content="hmm"),
        delta(content="Hi"),
        delta(reasoning_details=[DETAIL]),
        delta(finish="stop"),
    ],
    "opening the block": [delta(reasoning_details=[DETAIL]), delta(finish="stop")],
}


@pytest.mark.parametrize("order", list(ORDERS))
def test_the_signature_is_the_entries_json_with_non_ascii_kept(order: str) -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder)
    at_end: list[str | None] = []

    def read(events: list[Any]) -> None:  # each event as a consumer sees it, when it comes
        for event in events:
            if event.type == "thinking_end":
                block = event.partial.content[event.content_index]
                assert isinstance(block, ThinkingContent)
                at_end.append(block.thinking_signature)

    for chunk in ORDERS[order]:
        read(decoder.feed(chunk))
    read(decoder.finish(saw_done=True))
    (thinking,) = [b for b in builder.message.content if isinstance(b, ThinkingContent)]
    assert thinking.thinking_signature == TEXT
    assert at_end == ["reasoning_content" if order == "after the block ended" else TEXT]
    assert json.loads(TEXT) == [DETAIL]
