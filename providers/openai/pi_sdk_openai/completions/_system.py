"""Chat Completions system messages: the leading prompt and later ones sent in place (pi-ai 1.6).

A model with ``supportsMidConvoSystemMessages`` (DeepSeek V4, Kimi K3) gets each later
:class:`pi_sdk.SystemMessage` at its position, as a ``system`` (or ``developer``) message; with
``supportsMidConvoToolAdditions`` too (Kimi K3), the tools it adds come first in a
``{"role": "system", "tools": [...]}`` message. Any other model gets one leading prompt replayed
from every system message. Source: pi-ai 1.6 ``openai-completions.ts`` ``convertMessages``.
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk import provider as kit

from ._compat import CompletionsCompat
from ._tools import convert_tools

__all__ = ["read_parts", "system_entries"]


def read_parts(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    compat: CompletionsCompat,
    options: pi_sdk.StreamOptions | None = None,
) -> kit.ContextParts:
    """Read ``context`` for this API (:meth:`pi_sdk.provider.ContextParts.read`) by ``compat``.

    The forced answer tool of ``options.output`` (``mode="tool"``) joins the request tools.
    """
    output = options.resolved_output() if options is not None else None
    extra_tools = [kit.output_tool(output)] if output is not None and output.mode == "tool" else []
    in_place = compat.supports_mid_convo_system_messages
    additions = in_place and compat.supports_mid_convo_tool_additions
    return kit.ContextParts.read(
        context,
        model,
        in_place=in_place,
        tool_support="additions" if additions else "none",
        extra_tools=extra_tools,
    )


def system_entries(
    message: pi_sdk.SystemMessage,
    parts: kit.ContextParts,
    role: str,
    compat: CompletionsCompat,
    model: pi_sdk.Model,
) -> list[dict[str, Any]]:
    """The messages one in-place system message becomes (its tools, then its text)."""
    out: list[dict[str, Any]] = []
    if added := parts.tools_added_in_place(message):
        out.append({"role": "system", "tools": convert_tools(added, compat, model)})
    if text := message.update_text:
        out.append({"role": role, "content": kit.sanitize_surrogates(text)})
    return out
