"""Gemini server-tool parts -> pi-sdk's :class:`pi_sdk.ServerToolCall` / ``ServerToolResult``.

Gemini runs code execution and, on Gemini 3 with ``includeServerSideToolInvocations``, its
built-in tools itself, and reports them as parts of the model's turn (Gemini API reference,
``Part``): ``executableCode`` (``language``, ``code``, ``id``?) and its ``codeExecutionResult``
(``outcome``, ``output``, ``id``?); ``toolCall`` (``toolType``, ``id``, ``args``) and its
``toolResponse`` (``toolType``, ``id``, ``response``). A part may carry a ``thoughtSignature``.

The whole part is kept as ``raw`` and sent back as it came (signature included) to the same
model and endpoint, as the recorded follow-up does.
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["SERVER_PARTS", "SERVER_TOOL_DEFINITIONS", "server_part_block"]

SERVER_TOOL_DEFINITIONS: dict[str, dict[str, Any]] = {
    "web_search": {"googleSearch": {}},
    "web_fetch": {"urlContext": {}},
    "code_execution": {"codeExecution": {}},
}
"""``StreamOptions.server_tools`` names -> Gemini tools (Google Search grounding, URL context,
code execution)."""

SERVER_PARTS = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
"""Part fields of server-side tools."""

_FAILED = frozenset({"OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED"})


def server_part_block(
    part: dict[str, Any], field: str
) -> pi_sdk.ServerToolCall | pi_sdk.ServerToolResult:
    """The block of a server-tool part whose payload is ``part[field]``."""
    value = part.get(field)
    body = cast(dict[str, Any], value) if isinstance(value, dict) else {}
    part_id = str(body.get("id") or "")
    if field == "executableCode":
        arguments = {k: body[k] for k in ("language", "code") if k in body}
        return pi_sdk.ServerToolCall(
            id=part_id, name="code_execution", arguments=arguments, raw=dict(part)
        )
    if field == "toolCall":
        args = body.get("args")
        return pi_sdk.ServerToolCall(
            id=part_id,
            name=str(body.get("toolType") or "tool"),
            arguments=cast(dict[str, Any], args) if isinstance(args, dict) else {},
            raw=dict(part),
        )
    if field == "codeExecutionResult":
        outcome = body.get("outcome")
        return pi_sdk.ServerToolResult(
            tool_call_id=part_id,
            kind="codeExecutionResult",
            content={k: body[k] for k in ("outcome", "output") if k in body},
            error=str(outcome) if outcome in _FAILED else None,
            raw=dict(part),
        )
    return pi_sdk.ServerToolResult(
        tool_call_id=part_id,
        kind=str(body.get("toolType") or "toolResponse"),
        content=body.get("response"),
        raw=dict(part),
    )
