"""The error result of a tool call whose arguments were not one whole, valid JSON object.

The builder marks such a call (:attr:`pi_sdk.ToolCall.invalid_arguments`: the raw text); the
agent never runs it and answers with the text below, so the model can read what went wrong and
call again. pi-mono runs these calls with its partial parse (``{}`` for garbage, the truncated
value for a reply cut by the token limit), which ran tools on arguments the model never wrote.
"""

from __future__ import annotations

import json

from pi_sdk.types import AssistantMessage, ToolCall

__all__ = ["MAX_RECEIVED_CHARS", "invalid_arguments_text"]

MAX_RECEIVED_CHARS = 2000
"""How much of the raw text the error result repeats (characters); the rest is counted."""

CUT_OFF_TEXT = (
    "arguments were cut off: the reply stopped at max tokens before the call was complete"
)


_JSON_KINDS: dict[type, str] = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
}


def _reason(raw: str) -> str:
    """Why ``raw`` is not a JSON object, in the words of Python's JSON parser."""
    if not raw.strip():
        return "the text is empty"
    try:
        value: object = json.loads(raw)
    except RecursionError:
        return "nesting too deep"
    except ValueError as exc:
        return str(exc)
    kind = _JSON_KINDS.get(type(value), "value")
    return f"a JSON {kind} is not an object"


def _bounded(raw: str) -> str:
    if len(raw) <= MAX_RECEIVED_CHARS:
        return raw
    return f"{raw[:MAX_RECEIVED_CHARS]}... ({len(raw) - MAX_RECEIVED_CHARS} more characters)"


def invalid_arguments_text(tool_call: ToolCall, message: AssistantMessage) -> str:
    """The error result text for ``tool_call``, whose ``invalid_arguments`` is set.

    A reply that stopped at the token limit (``stop_reason == "length"``) cut the call off:
    ``"arguments were cut off: the reply stopped at max tokens before the call was complete"``.
    Otherwise ``"arguments were not valid JSON: <parser's reason>; received: <raw text>"``, the
    raw text bounded to :data:`MAX_RECEIVED_CHARS` characters.
    """
    raw = tool_call.invalid_arguments or ""
    if message.stop_reason == "length":
        return CUT_OFF_TEXT
    return f"arguments were not valid JSON: {_reason(raw)}; received: {_bounded(raw)}"
