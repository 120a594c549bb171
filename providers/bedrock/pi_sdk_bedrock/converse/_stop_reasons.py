"""Bedrock ``stopReason`` values -> pi stop reasons, or the error text of one that is an error.

Bedrock Runtime API reference, ``ConverseStream`` / ``Converse`` ``stopReason``; mapping as
pi-mono ``mapStopReason``, with the error reasons said in words (``docs/providers/bedrock.md``).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["map_stop_reason", "stop_error_text"]

_STOP_REASONS: dict[str, Literal["stop", "length", "toolUse"]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}
_STOP_ERRORS = {
    "guardrail_intervened": "The response was blocked by an Amazon Bedrock guardrail",
    "content_filtered": "The response was blocked by the model's content filter",
    "malformed_model_output": "The model returned output Bedrock could not parse",
    "malformed_tool_use": "The model returned a malformed tool call",
}


def map_stop_reason(reason: str) -> Literal["stop", "length", "toolUse"] | None:
    """Map a Bedrock ``stopReason``; ``None`` for one that ends in ``error``.

    ``end_turn``/``stop_sequence`` -> ``stop``; ``max_tokens``/``model_context_window_exceeded``
    -> ``length``; ``tool_use`` -> ``toolUse`` (pi-mono ``mapStopReason``).
    ``guardrail_intervened``, ``content_filtered`` and unknown reasons give ``None``.
    """
    return _STOP_REASONS.get(reason)


def stop_error_text(reason: str) -> str:
    """The ``error_message`` of a reply that stopped for ``reason`` (not a stop reason)."""
    text = _STOP_ERRORS.get(reason)
    return f"{text} (stopReason: {reason})" if text else f"Unhandled stop reason: {reason}"
