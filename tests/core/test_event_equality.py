"""Stream events compare by what they say, never by the message being built (issue 34).

``partial`` is the same mutable message throughout one call (pi-mono behaviour), so two calls
that stream the same deltas give equal events however far their messages got; every other field
takes part in ``==``. Events are slotted, keyword-only dataclasses whose ``repr`` leaves the
message out (docs: "light slotted dataclasses").
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pi_sdk import events as ev
from pi_sdk.types import (
    AssistantMessage,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ToolCall,
)

CLASSES = [getattr(ev, name) for name in ev.__all__ if dataclasses.is_dataclass(getattr(ev, name))]


def _message(text: str) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="a", provider="p", model="m", timestamp=1
    )


def _values(name: str) -> tuple[Any, Any]:
    """Two different values for the field ``name``."""
    if name == "content_index":
        return 0, 1
    if name in ("delta", "content"):
        return "a", "b"
    if name == "tool_call":
        return ToolCall(id="1", name="f", arguments={}), ToolCall(id="2", name="f", arguments={})
    if name == "server_tool_call":
        return (
            ServerToolCall(id="s1", name="web_search"),
            ServerToolCall(id="s2", name="web_search"),
        )
    if name == "server_tool_result":
        return (
            ServerToolResult(tool_call_id="s1", kind="web_search_tool_result"),
            ServerToolResult(tool_call_id="s2", kind="web_search_tool_result"),
        )
    if name == "image":
        return (
            ImageContent(data="aGk=", mime_type="image/png"),
            ImageContent(data="aG8=", mime_type="image/png"),
        )
    if name in ("message", "error", "partial"):
        return _message("one"), _message("two")
    if name == "reason":
        return "stop", "length"
    raise AssertionError(f"no sample values for {name}")


def _event(cls: type, **override: Any) -> Any:
    kwargs = {
        f.name: _values(f.name)[0]
        for f in dataclasses.fields(cls)
        if f.name != "type" and f.name not in override
    }
    if cls is ev.ErrorEvent and "reason" not in override:
        kwargs["reason"] = "error"
    return cls(**kwargs, **override)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_events_are_equal_whatever_the_partial_message(cls: type) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    if "partial" not in names:  # done / error: the final message is what they say
        return
    first = _event(cls, partial=_message("early"))
    second = _event(cls, partial=_message("much later"))
    assert first == second
    assert "partial" not in repr(first) and "much later" not in repr(second)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_other_field_takes_part(cls: type) -> None:
    base = _event(cls)
    for field in dataclasses.fields(cls):
        if field.name in ("type", "partial"):
            continue
        if cls is ev.ErrorEvent and field.name == "reason":
            changed = _event(cls, reason="aborted")
        else:
            changed = _event(cls, **{field.name: _values(field.name)[1]})
        assert base != changed, (cls.__name__, field.name)


def test_events_of_different_types_are_never_equal() -> None:
    message = _message("x")
    text = ev.TextDeltaEvent(content_index=0, delta="a", partial=message)
    thinking = ev.ThinkingDeltaEvent(content_index=0, delta="a", partial=message)
    arguments = ev.ToolCallDeltaEvent(content_index=0, delta="a", partial=message)
    assert text != thinking and thinking != arguments and text != arguments


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_events_are_slotted_and_keyword_only(cls: type) -> None:
    event = _event(cls)
    assert not hasattr(event, "__dict__")
    first = dataclasses.fields(cls)[0]
    with pytest.raises(TypeError):
        cls(_values(first.name)[0])
    assert event.partial is (getattr(event, "message", None) or event.partial)
