"""OpenRouter ``reasoning_details``: read from a stream, kept on the thinking block, sent back.

OpenRouter ("Reasoning tokens", preserving reasoning) streams a reply's reasoning as
``delta.reasoning_details`` entries: ``reasoning.text`` (readable thinking; Claude's carries its
``signature``), ``reasoning.summary`` and ``reasoning.encrypted`` (opaque ``data``), each with
optional ``id``, ``format`` and ``index``. The next request to the same model must send them
back unchanged on the assistant message, or the model loses its reasoning (and Claude's thinking
its signature). pi-ai 1.6 keeps the merged list as the thinking block's ``thinkingSignature``
(JSON) and sends it back as ``reasoning_details``; older messages (pi-ai 0.7x, pi-sdk before
issue 27) hold one encrypted entry on a tool call's ``thoughtSignature``, still read.
"""

from __future__ import annotations

import json
from typing import Any, cast

__all__ = [
    "append_reasoning_detail",
    "is_reasoning_detail",
    "legacy_encrypted_detail",
    "parse_reasoning_details",
]


def is_reasoning_detail(detail: Any) -> bool:
    """True for a well-formed entry (pi-ai 1.6 ``isOpenAIReasoningDetail``)."""
    if not isinstance(detail, dict):
        return False
    fields = cast("dict[str, Any]", detail)
    if fields.get("id") is not None and not isinstance(fields["id"], str):
        return False
    if "format" in fields and not isinstance(fields["format"], str):
        return False
    index = fields.get("index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int | float)):
        return False
    kind = fields.get("type")
    if kind == "reasoning.summary":
        return isinstance(fields.get("summary"), str)
    if kind == "reasoning.encrypted":
        return isinstance(fields.get("data"), str)
    if kind == "reasoning.text":
        signature = fields.get("signature")
        return isinstance(fields.get("text"), str) and (
            signature is None or isinstance(signature, str)
        )
    return False


def append_reasoning_detail(details: list[dict[str, Any]], detail: dict[str, Any]) -> None:
    """Add a streamed entry: consecutive text or summary deltas merge into one entry."""
    last = details[-1] if details else None
    kind = detail.get("type")
    if (
        last is not None
        and kind == last.get("type")
        and kind in ("reasoning.text", "reasoning.summary")
    ):
        field = "text" if kind == "reasoning.text" else "summary"
        last[field] += detail[field]
        if kind == "reasoning.text" and not last.get("signature") and detail.get("signature"):
            last["signature"] = detail["signature"]
        if last.get("id") is None and detail.get("id") is not None:
            last["id"] = detail["id"]
        if not last.get("format") and detail.get("format"):
            last["format"] = detail["format"]
        if last.get("index") is None and detail.get("index") is not None:
            last["index"] = detail["index"]
        return
    details.append(dict(detail))


def _loads(signature: str | None, opener: str) -> Any:
    """``signature`` parsed as JSON when it starts with ``opener``, else ``None``."""
    if not signature or not signature.startswith(opener):
        return None
    try:
        return json.loads(signature)
    except ValueError:
        return None


def parse_reasoning_details(signature: str | None) -> list[dict[str, Any]] | None:
    """A thinking block's signature read as a list of entries, or ``None`` when it is not one."""
    parsed: Any = _loads(signature, "[")
    if isinstance(parsed, list) and parsed and all(is_reasoning_detail(d) for d in parsed):  # pyright: ignore[reportUnknownVariableType]
        return cast("list[dict[str, Any]]", parsed)
    return None


def legacy_encrypted_detail(signature: str | None) -> dict[str, Any] | None:
    """One encrypted entry stored on a tool call (the older form), or ``None``."""
    parsed: Any = _loads(signature, "{")
    if (
        is_reasoning_detail(parsed)
        and parsed["type"] == "reasoning.encrypted"
        and isinstance(parsed.get("id"), str)
        and parsed["id"]
        and parsed["data"]
    ):
        return cast("dict[str, Any]", parsed)
    return None
