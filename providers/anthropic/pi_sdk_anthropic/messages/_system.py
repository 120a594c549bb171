"""Anthropic system messages in place and native tool changes (pi-ai 1.6).

A model with ``supportsMidConvoSystemMessages`` gets each later :class:`pi_sdk.SystemMessage`
as a ``{"role": "system", "content": [...]}`` message, held back until just before the next
assistant message (or the end): a ``tool_result`` must follow its ``tool_use`` directly. With
``supportsMidConvoToolChanges`` too, and tools on the leading message, the request's ``tools``
stay the leading message's tools plus a never-active deferred placeholder (so the scaffolding
Anthropic adds for tool changes is in the cached prefix from the first request), later tools
are defined by value in ``tool_addition`` blocks and withdrawn by ``tool_removal`` blocks, and
the ``inline-tools-2026-09-15`` beta is asked for. Any other model gets one leading prompt and
the current tool list. Source: pi-ai 1.6 ``anthropic-messages.ts`` (``buildParams``,
``convertMessages``, ``DEFERRED_TOOL_PLACEHOLDER``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pi_sdk
from pi_sdk import provider as kit

from ._compat import resolve_anthropic_compat
from ._tools import convert_tools, to_claude_code_name

__all__ = [
    "DEFERRED_TOOL_PLACEHOLDER",
    "INLINE_TOOLS_BETA",
    "native_tool_changes",
    "read_parts",
    "system_message",
    "tool_definitions",
]

INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
"""The beta native tool changes need (pi-ai 1.6 ``INLINE_TOOLS_BETA``)."""
DEFERRED_TOOL_PLACEHOLDER: dict[str, Any] = {
    "name": "__pi_deferred_placeholder__",
    "description": "Reserved placeholder. Never available. Never call this.",
    "input_schema": {"type": "object", "properties": {}, "required": []},
    "defer_loading": True,
}
"""The deferred tool declared beside the initial tools when tool changes are native."""


def native_tool_changes(model: pi_sdk.Model, context: pi_sdk.Context) -> bool:
    """Whether tool changes go as ``tool_addition``/``tool_removal`` blocks for this request."""
    compat = resolve_anthropic_compat(model)
    if not (compat.supports_mid_convo_system_messages and compat.supports_mid_convo_tool_changes):
        return False
    messages = pi_sdk.normalize_context(context).messages
    lead = messages[0] if messages else None
    return isinstance(lead, pi_sdk.SystemMessage) and bool(lead.tools_added)


def read_parts(
    model: pi_sdk.Model, context: pi_sdk.Context, *, extra_tools: Sequence[pi_sdk.Tool] = ()
) -> tuple[kit.ContextParts, bool]:
    """``(parts, native)``: ``context`` read for this API, and whether tool changes are native.

    With native changes the request tools are the leading message's (plus ``extra_tools``);
    the caller adds :data:`DEFERRED_TOOL_PLACEHOLDER`.
    """
    native = native_tool_changes(model, context)
    parts = kit.ContextParts.read(
        context, model, tool_support="changes" if native else "none", extra_tools=extra_tools
    )
    if native and parts.leading is not None:
        tools = [*(parts.leading.tools_added or ()), *extra_tools]
        parts = kit.ContextParts(
            system_prompt=parts.system_prompt,
            tools=tools,
            messages=parts.messages,
            leading=parts.leading,
            folded=parts.folded | {id(parts.leading)},
        )
    return parts, native


def system_message(
    message: pi_sdk.SystemMessage,
    parts: kit.ContextParts,
    *,
    oauth: bool,
    definitions: Callable[[list[pi_sdk.Tool]], list[dict[str, Any]]] | None,
) -> dict[str, Any] | None:
    """The ``system`` message one later system message becomes; ``None`` when it has nothing.

    ``definitions`` converts tools to Anthropic definitions when tool changes are native.
    """
    blocks: list[dict[str, Any]] = []
    if text := message.update_text:
        blocks.append({"type": "text", "text": kit.sanitize_surrogates(text)})
    if definitions is not None:
        added = parts.tools_added_in_place(message)
        redefined = {t.name for t in added}
        for ref in message.tools_removed or ():
            if ref.name in redefined:
                continue  # a new definition of the same name replaces the old one
            name = to_claude_code_name(ref.name) if oauth else ref.name
            reference = {"type": "tool_reference", "name": name}
            blocks.append({"type": "tool_removal", "tool": reference})
        blocks.extend(
            {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": d}}
            for d in definitions(added)
        )
    return {"role": "system", "content": blocks} if blocks else None


def tool_definitions(
    model: pi_sdk.Model, oauth: bool, prefer_strict: bool
) -> Callable[[list[pi_sdk.Tool]], list[dict[str, Any]]]:
    """The converter of the tools a ``tool_addition`` block defines (no cache marker)."""
    return lambda tools: convert_tools(
        tools, model, oauth=oauth, cache_control=None, prefer_strict=prefer_strict
    )
