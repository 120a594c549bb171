"""Only choice 0 is the reply, on the fast path and on the general rules alike.

Chat Completions and Mistral chunks carry a ``choices`` list; a server asked for one answer
sends index 0, but a proxy may pass other indexes through (``n`` > 1, a stray negative one
from a broken gateway). The decoders' fast path (a text piece of the open block) and their
general rules must agree on every such chunk: the text of choice 0 alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_mistral.conversations._decode import Decoder as MistralDecoder
from pi_sdk_openai.completions._decode import Decoder as CompletionsDecoder

from pi_sdk import Model, TextContent
from pi_sdk.events import event_to_dict
from pi_sdk.provider import MessageBuilder

DECODERS: dict[str, tuple[type[Any], str]] = {
    "openai-completions": (CompletionsDecoder, "openai"),
    "mistral-conversations": (MistralDecoder, "mistral"),
}


def piece(text: str, index: int | None) -> dict[str, Any]:
    choice: dict[str, Any] = {"delta": {"content": text}, "finish_reason": None}
    if index is not None:
        choice["index"] = index
    return {"id": "r1", "model": "m", "choices": [choice]}


CHUNKS = [
    piece("Hel", 0),
    piece("lo", None),  # no index: choice 0
    piece(" other", 1),
    piece(" stray", -1),
    piece(" there", 0),
    piece(" again", -2),
    {"id": "r1", "model": "m", "choices": [
        {"index": 1, "delta": {"content": " one"}, "finish_reason": None},
        {"index": 0, "delta": {"content": "!"}, "finish_reason": None},
    ]},
]  # fmt: skip


def run(api: str, general: bool) -> tuple[list[dict[str, Any]], list[Any]]:
    decoder_type, provider = DECODERS[api]
    builder = MessageBuilder(Model(id="m", api=api, provider=provider))
    decoder = decoder_type(builder)
    feed = decoder._feed if general else decoder.feed  # pyright: ignore[reportPrivateUsage]
    events = [builder.start()]
    for chunk in CHUNKS:
        events += feed(chunk)
    return [event_to_dict(e, include_partial=False) for e in events], builder.message.content


@pytest.mark.parametrize("api", list(DECODERS))
def test_choice_zero_alone_is_read_by_the_fast_path_and_the_general_rules(api: str) -> None:
    fast_events, fast_content = run(api, general=False)
    general_events, general_content = run(api, general=True)
    assert fast_content == general_content == [TextContent(text="Hello there!")]
    assert fast_events == general_events
