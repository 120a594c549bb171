"""What every block operation of the message builder does with a key that is skipped (a server
tool's block, an unknown block type: ignored, no events, nothing changed), with a key never
opened (``malformed stream``) and with a key open as another kind (``stream protocol error``),
with the whole error text (``pi_sdk/_stream/builder.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pi_sdk import Model
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk.provider import ProviderError

MODEL = Model(id="m", api="builder-edges", provider="p")

OPERATIONS: dict[str, tuple[str, Callable[[MessageBuilder, Any], Any]]] = {
    "settle_text": ("text", lambda b, k: b.settle_text(k, "final")),
    "set_signature": ("signature", lambda b, k: b.set_signature(k, "sig")),
    "append_signature": ("signature", lambda b, k: b.append_signature(k, "sig")),
    "settle_arguments": ("toolcall", lambda b, k: b.settle_arguments(k, "{}")),
    "end_text": ("text", lambda b, k: b.end_text(k)),
    "end_thinking": ("thinking", lambda b, k: b.end_thinking(k)),
    "end_tool_call": ("toolcall", lambda b, k: b.end_tool_call(k)),
    "append_text": ("text", lambda b, k: b.append_text(k, "x")),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_skipped_key_is_ignored(name: str):
    _, operation = OPERATIONS[name]
    builder = MessageBuilder(MODEL)
    builder.open_text("kept", "so far")
    builder.skip("server-tool")
    result = operation(builder, "server-tool")
    assert result in (None, [])
    assert builder.open_keys == ["kept"] and builder.is_skipped("server-tool")
    assert [b.model_dump() for b in builder.message.content] == [{"type": "text", "text": "so far"}]


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_key_never_opened_is_a_malformed_stream(name: str):
    wanted, operation = OPERATIONS[name]
    builder = MessageBuilder(MODEL)
    with pytest.raises(ProviderError) as caught:
        operation(builder, 7)
    assert str(caught.value) == (
        f"malformed stream: {wanted} data for block 7, which is not open"
        " (never started, or already ended)"
    )


@pytest.mark.parametrize(
    ("name", "opened", "kind"),
    [
        ("settle_text", "toolcall", "toolcall"),
        ("settle_arguments", "text", "text"),
        ("end_text", "thinking", "thinking"),
        ("end_thinking", "text", "text"),
        ("end_tool_call", "thinking", "thinking"),
        ("append_text", "toolcall", "toolcall"),
    ],
)
def test_a_key_open_as_another_kind_is_a_protocol_error(name: str, opened: str, kind: str):
    wanted, operation = OPERATIONS[name]
    builder = MessageBuilder(MODEL)
    if opened == "text":
        builder.open_text("b")
    elif opened == "thinking":
        builder.open_thinking("b")
    else:
        builder.open_tool_call("b", id="c1", name="f")
    with pytest.raises(ProviderError) as caught:
        operation(builder, "b")
    assert str(caught.value) == (
        f"stream protocol error: {wanted} data for block 'b', a {kind} block"
    )


def test_signatures_of_each_kind_of_open_block():
    builder = MessageBuilder(MODEL)
    builder.open_text("t")
    builder.open_thinking("k")
    builder.open_tool_call("c", id="c1", name="f")
    builder.set_signature("t", "text-sig")
    builder.append_signature("k", "think-")
    builder.append_signature("k", "sig")
    builder.set_signature("c", "old")
    builder.set_signature("c", "call-sig")  # the latest wins
    text, thinking, call = builder.message.content
    assert text.text_signature == "text-sig"  # type: ignore[union-attr]
    assert thinking.thinking_signature == "think-sig"  # type: ignore[union-attr]
    assert call.thought_signature == "call-sig"  # type: ignore[union-attr]


def test_settle_text_extends_with_a_delta_or_replaces_without_one():
    builder = MessageBuilder(MODEL)
    builder.open_thinking("k", "Let me")
    events = builder.settle_text("k", "Let me think.")
    assert [(e.type, e.delta) for e in events] == [("thinking_delta", " think.")]
    assert builder.settle_text("k", "Let me think.") == []
    assert builder.settle_text("k", "Other words") == []
    assert builder.message.content[0].thinking == "Other words"  # type: ignore[union-attr]
