"""The error result of a tool call whose arguments were not one whole, valid JSON object.

The builder marks such a call (:attr:`pi_sdk.ToolCall.invalid_arguments`: the raw text); the
agent never runs it and answers with the text below, so the model can read what went wrong and
call again. pi-mono 0.73 ran these calls with its partial parse (``{}`` for garbage, the
truncated value for a reply cut by the token limit), which ran tools on arguments the model never
wrote. pi-ai 1.6 marks them too (``argumentsError``, :attr:`pi_sdk.ToolCall.arguments_error`);
a call loaded from a pi 1.6 transcript with only that mark gets pi-agent-core 1.6's error text.
"""

from __future__ import annotations

from pi_sdk._wire.arguments_error import json_object_problem
from pi_sdk.types import AssistantMessage, ToolCall

__all__ = ["MAX_RECEIVED_CHARS", "has_invalid_arguments", "invalid_arguments_text"]

MAX_RECEIVED_CHARS = 2000
"""How much of the raw text the error result repeats (characters); the rest is counted."""

CUT_OFF_TEXT = (
    "arguments were cut off: the reply stopped at max tokens before the call was complete"
)


def _bounded(raw: str) -> str:
    if len(raw) <= MAX_RECEIVED_CHARS:
        return raw
    return f"{raw[:MAX_RECEIVED_CHARS]}... ({len(raw) - MAX_RECEIVED_CHARS} more characters)"


def has_invalid_arguments(tool_call: ToolCall) -> bool:
    """True when ``tool_call`` is marked malformed: its tool must not run, it is replayed as ``{}``.

    Marked by pi-sdk (``invalid_arguments``) or by pi-ai 1.6 (``arguments_error``).
    """
    return tool_call.invalid_arguments is not None or tool_call.arguments_error is not None


def invalid_arguments_text(tool_call: ToolCall, message: AssistantMessage) -> str:
    """The error result text for ``tool_call``, marked malformed (:func:`has_invalid_arguments`).

    A reply that stopped at the token limit (``stop_reason == "length"``) cut the call off:
    ``"arguments were cut off: the reply stopped at max tokens before the call was complete"``.
    Otherwise ``"arguments were not valid JSON: <parser's reason>; received: <raw text>"``, the
    raw text bounded to :data:`MAX_RECEIVED_CHARS` characters. A call marked by pi-ai 1.6 only
    (``arguments_error`` without the raw text) gets pi-agent-core 1.6's text:
    ``'Invalid arguments for tool "<name>": <arguments_error>'``.
    """
    raw = tool_call.invalid_arguments
    if raw is None:
        return f'Invalid arguments for tool "{tool_call.name}": {tool_call.arguments_error or ""}'
    if message.stop_reason == "length":
        return CUT_OFF_TEXT
    return f"arguments were not valid JSON: {json_object_problem(raw)}; received: {_bounded(raw)}"
