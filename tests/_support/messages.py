"""Message builders shared by the history tests (transform, adapters)."""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk.provider import new_assistant_message


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
