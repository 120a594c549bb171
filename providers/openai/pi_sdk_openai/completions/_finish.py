"""How a Chat Completions reply ends: its stop reason and its in-stream error text.

``finish_reason`` as a pi stop reason (pi-ai 1.6 ``mapStopReason``), and the text of an
``error`` object (with OpenRouter's upstream error).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from .._shared_json import as_dict

__all__ = ["error_text", "map_stop_reason"]

_FINISH: dict[str, Literal["stop", "length", "toolUse"]] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


def map_stop_reason(reason: str | None) -> Literal["stop", "length", "toolUse", "error"]:
    """Map a ``finish_reason`` to a pi stop reason.

    ``stop``/``end``/none → stop, ``length`` → length, ``tool_calls``/``function_call`` →
    toolUse, anything else (``content_filter``, unknown values) → error.
    """
    if reason is None:
        return "stop"
    return _FINISH.get(reason, "error")


def error_text(error: Any) -> str:
    """Return the text of an in-stream ``error`` object: ``"<code>: <message>"``.

    OpenRouter's ``metadata.raw`` (the upstream provider's own error) follows on a new line.
    """
    fields = as_dict(error)
    if not fields:
        return str(error)
    message = fields.get("message") or json.dumps(fields)
    code = fields.get("code")
    text = f"{code}: {message}" if code is not None else str(message)
    raw = as_dict(fields.get("metadata")).get("raw")
    return f"{text}\n{raw}" if isinstance(raw, str) and raw else text
