"""``event_to_dict`` (``pi_sdk/events.py``): each of the 15 events in pi-mono's JSON shape, with
and without the partial message, and the terminal events' views of their final message."""

from __future__ import annotations

from typing import Any

import pytest

import pi_sdk
import pi_sdk.events as ev

MESSAGE = pi_sdk.AssistantMessage(
    api="a", provider="p", model="m", content=[pi_sdk.TextContent(text="hi")]
)
CALL = pi_sdk.ToolCall(id="c1", name="f", arguments={"q": 1})
SERVER_CALL = pi_sdk.ServerToolCall(id="s1", name="web_search")
SERVER_RESULT = pi_sdk.ServerToolResult(tool_call_id="s1", kind="web_search_result")
IMAGE = pi_sdk.ImageContent(data="AAAA", mime_type="image/png")


def _prose(kind: str, start: Any, delta: Any, end: Any) -> list[tuple[Any, dict[str, Any]]]:
    """The start, delta and end of a text or thinking block at index 2, in pi-mono's shape."""
    return [
        (start(content_index=2, partial=MESSAGE), {"type": f"{kind}_start", "contentIndex": 2}),
        (
            delta(content_index=2, delta="h", partial=MESSAGE),
            {"type": f"{kind}_delta", "contentIndex": 2, "delta": "h"},
        ),
        (
            end(content_index=2, content="hi", partial=MESSAGE),
            {"type": f"{kind}_end", "contentIndex": 2, "content": "hi"},
        ),
    ]


CASES: list[tuple[Any, dict[str, Any]]] = [
    (ev.StartEvent(partial=MESSAGE), {"type": "start"}),
    *_prose("text", ev.TextStartEvent, ev.TextDeltaEvent, ev.TextEndEvent),
    *_prose("thinking", ev.ThinkingStartEvent, ev.ThinkingDeltaEvent, ev.ThinkingEndEvent),
    (
        ev.ToolCallStartEvent(content_index=3, partial=MESSAGE),
        {"type": "toolcall_start", "contentIndex": 3},
    ),
    (
        ev.ToolCallDeltaEvent(content_index=3, delta="{", partial=MESSAGE),
        {"type": "toolcall_delta", "contentIndex": 3, "delta": "{"},
    ),
    (
        ev.ToolCallEndEvent(content_index=3, tool_call=CALL, partial=MESSAGE),
        {"type": "toolcall_end", "contentIndex": 3, "toolCall": CALL.model_dump(mode="json")},
    ),
    (
        ev.ServerToolCallEvent(content_index=4, server_tool_call=SERVER_CALL, partial=MESSAGE),
        {
            "type": "servertool_call",
            "contentIndex": 4,
            "serverToolCall": SERVER_CALL.model_dump(mode="json"),
        },
    ),
    (
        ev.ServerToolResultEvent(
            content_index=5, server_tool_result=SERVER_RESULT, partial=MESSAGE
        ),
        {
            "type": "servertool_result",
            "contentIndex": 5,
            "serverToolResult": SERVER_RESULT.model_dump(mode="json"),
        },
    ),
    (
        ev.ImageEvent(content_index=6, image=IMAGE, partial=MESSAGE),
        {"type": "image", "contentIndex": 6, "image": IMAGE.model_dump(mode="json")},
    ),
]


@pytest.mark.parametrize(("event", "shape"), CASES, ids=[c[1]["type"] for c in CASES])
def test_each_event_in_pi_monos_shape(event: Any, shape: dict[str, Any]) -> None:
    assert ev.event_to_dict(event, include_partial=False) == shape
    with_partial = ev.event_to_dict(event)
    assert with_partial == {**shape, "partial": MESSAGE.model_dump(mode="json")}
    assert list(with_partial)[0] == "type"


@pytest.mark.parametrize("include_partial", [True, False])
def test_terminal_events_always_carry_their_message(include_partial: bool) -> None:
    dumped = MESSAGE.model_dump(mode="json")
    done = ev.DoneEvent(reason="stop", message=MESSAGE)
    assert ev.event_to_dict(done, include_partial=include_partial) == {
        "type": "done",
        "reason": "stop",
        "message": dumped,
    }
    error = ev.ErrorEvent(reason="aborted", error=MESSAGE)
    assert ev.event_to_dict(error, include_partial=include_partial) == {
        "type": "error",
        "reason": "aborted",
        "error": dumped,
    }


def test_terminal_events_name_their_final_message_every_way() -> None:
    done = ev.DoneEvent(reason="length", message=MESSAGE)
    assert done.partial is MESSAGE and done.type == "done"
    error = ev.ErrorEvent(reason="error", error=MESSAGE)
    assert error.partial is MESSAGE and error.message is MESSAGE and error.type == "error"
