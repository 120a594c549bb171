"""Message builders shared by the history tests (transform, adapters, round trips)."""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.types import AssistantContent


def assistant(
    model: pi_sdk.Model, *content: Any, stop: str = "toolUse", ts: int = 1000
) -> pi_sdk.AssistantMessage:
    """An assistant turn as `model` itself would have replied (new_assistant_message)."""
    message = new_assistant_message(model)
    message.content = list(content)
    message.stop_reason = stop  # type: ignore[assignment]
    message.timestamp = ts
    return message


def reply(
    model: pi_sdk.Model, *content: Any, stop_reason: str = "toolUse", **fields: Any
) -> pi_sdk.AssistantMessage:
    """An assistant turn naming `model` but without `signature_origin` (as older sessions hold).

    `fields` are further `AssistantMessage` fields (`error_message`, `signature_origin`, ...).
    """
    return pi_sdk.AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        content=list(content),
        stop_reason=stop_reason,  # type: ignore[arg-type]
        **fields,
    )


def opaque_blocks() -> list[AssistantContent]:
    """An assistant turn's blocks holding every opaque field pi-mono stores on them.

    A signed thinking block (base64 with ``+`` and ``/``), a redacted one, a text block with an
    OpenAI Responses-style ``textSignature``, and a tool call (id ``toolu_01``, name
    ``get_weather``) with nested arguments (an int, a float, null, a bool) and a thought signature.
    Fresh objects on each call.
    """
    return [
        pi_sdk.ThinkingContent(thinking="think", thinking_signature="EqQBCkYI+/BxgCKkA="),
        pi_sdk.ThinkingContent(
            thinking="[Reasoning redacted]", thinking_signature="opaque", redacted=True
        ),
        pi_sdk.TextContent(text="calling", text_signature='{"v":1,"id":"msg_1"}'),
        pi_sdk.ToolCall(
            id="toolu_01",
            name="get_weather",
            arguments={"city": "Paris", "nested": {"list": [1, 2.5, None, True]}},
            thought_signature="c2lnbmF0dXJl",
        ),
    ]
