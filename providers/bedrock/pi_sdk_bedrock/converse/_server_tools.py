"""Amazon Nova's system tools: enabling them, and their blocks in a reply.

Nova models run two tools themselves (Amazon Nova user guide, "Built-in tools"), declared as
``{"systemTool": {"name": ...}}`` in ``toolConfig.tools`` (:func:`server_tool_definitions`,
for ``StreamOptions.server_tools``): ``nova_grounding`` (web search with citations) and
``nova_code_interpreter``. Other Bedrock models have none.

The code interpreter's run comes back in the assistant message as a ``toolUse`` of ``"type":
"server_tool_use"`` (``input``: ``{"snippet": ...}``) and a ``toolResult`` of ``"type":
"nova_code_interpreter_result"`` (``content``: ``[{"json": {"stdOut", "stdErr", "exitCode",
"isError"}}]``, ``status``). They become a :class:`pi_sdk.ServerToolCall` /
``ServerToolResult`` (:func:`server_block`) whose ``raw`` is the block, sent back as it came to
the same model and endpoint (the recorded follow-up did so).
"""

from __future__ import annotations

import json
from typing import Any, cast

import pi_sdk
from pi_sdk.provider import ProviderError

__all__ = ["server_block", "server_tool_definitions"]

_NOVA = {
    "web_search": {"systemTool": {"name": "nova_grounding"}},
    "code_execution": {"systemTool": {"name": "nova_code_interpreter"}},
}


def server_tool_definitions(model: pi_sdk.Model) -> dict[str, dict[str, Any]]:
    """Neutral name -> system tool for ``model`` (none unless it is a Nova model)."""
    return _NOVA if "nova" in model.id.lower() else {}


def server_block(parts: list[Any]) -> pi_sdk.ServerToolCall | pi_sdk.ServerToolResult:
    """The block of a server tool's ``contentBlockStart`` (``parts[0]``) and its deltas.

    The deltas are a call's ``input`` fragments or a result's ``toolResult`` content pieces.

    Raises:
        ProviderError: the gathered input is not a JSON object.
    """
    start = cast(dict[str, Any], parts[0])
    result = start.get("toolResult")
    if isinstance(result, dict):
        fields = cast(dict[str, Any], result)
        if len(parts) > 1:  # streamed: the start, then its content pieces
            fields = {
                **fields,
                "content": [*cast(list[Any], fields.get("content") or []), *parts[1:]],
            }
            start = {"toolResult": fields}
        status = fields.get("status")
        return pi_sdk.ServerToolResult(
            tool_call_id=str(fields.get("toolUseId") or ""),
            kind=str(fields.get("type") or "toolResult"),
            content=fields.get("content"),
            error=str(status) if status not in (None, "success") else None,
            raw=dict(start),
        )
    use = dict(cast(dict[str, Any], start.get("toolUse")))
    text = "".join(cast(list[str], parts[1:])) or "{}"
    try:
        arguments = json.loads(text)
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        raise ProviderError(f"the server tool call's input is not a JSON object: {text[:200]!r}")
    use["input"] = arguments
    return pi_sdk.ServerToolCall(
        id=str(use.get("toolUseId") or ""),
        name=str(use.get("name") or ""),
        arguments=cast(dict[str, Any], arguments),
        raw={"toolUse": use},
    )
