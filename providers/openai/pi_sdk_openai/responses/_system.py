"""Responses system messages: the leading prompt, later ones in place, ``additional_tools``.

A model with ``supportsMidConvoSystemMessages`` gets each later :class:`pi_sdk.SystemMessage`
at its position as a ``developer`` (or ``system``) input message. With
``supportsAdditionalTools`` too (GitHub Copilot's GPT-6 family), every tool is declared in
``additional_tools`` input items, the first at the head of the input, so a tool change keeps
the cached prefix: an item adds tools and replaces same-name ones, a removal is announced as
text, and every item after the first is preceded by a notice that it is incremental. Any
other model gets one leading prompt and the current tool list. Source: pi-ai 1.6
``openai-responses-shared.ts`` (``convertResponsesMessages``, ``getResponsesToolSupport``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pi_sdk
from pi_sdk import provider as kit

__all__ = ["SystemItems", "read_parts"]

INCREMENTAL_TOOLS_NOTICE = (
    "This is an incremental tools update. Previously declared tools remain available unless"
    " explicitly marked unavailable. A tool declared again here is available again, and its"
    " latest definition replaces the earlier one."
)
"""pi-ai 1.6's notice before every ``additional_tools`` item after the first."""


def read_parts(
    model: pi_sdk.Model, context: pi_sdk.Context, *, extra_tools: Sequence[pi_sdk.Tool] = ()
) -> kit.ContextParts:
    """Read ``context`` for this API (:meth:`pi_sdk.provider.ContextParts.read`).

    In place by the model's ``supportsMidConvoSystemMessages``; with ``supportsAdditionalTools``
    every tool is declared in place (``"changes"``, ignored when not in place).
    """
    changes = bool((model.compat or {}).get("supportsAdditionalTools"))
    support = "changes" if changes else "none"
    return kit.ContextParts.read(context, model, tool_support=support, extra_tools=extra_tools)


class SystemItems:
    """Turns the system messages of one request into input items, in order."""

    def __init__(
        self,
        parts: kit.ContextParts,
        role: str,
        convert_tools: Callable[[list[pi_sdk.Tool]], list[dict[str, Any]]],
    ) -> None:
        self.parts = parts
        self.convert_tools = convert_tools
        self.role = role
        self.declared = False
        self.unavailable: dict[str, None] = {}

    def items(self, message: pi_sdk.SystemMessage, *, leading: bool) -> list[dict[str, Any]]:
        """The input items of ``message`` (the leading one renders as a whole prompt)."""
        out: list[dict[str, Any]] = []
        in_place = id(message) not in self.parts.folded  # its tool changes are sent here
        added = self.parts.tools_added_in_place(message)
        for tool in added:
            self.unavailable.pop(tool.name, None)
        if added:
            if self.declared:
                out.append({"role": self.role, "content": self._notice()})
            self.declared = True
            out.append(
                {
                    "type": "additional_tools",
                    "role": "developer",
                    "tools": self.convert_tools(added),
                }
            )
        texts = [message.prompt_text if leading else message.update_text]
        if in_place:
            names = {t.name for t in message.tools_added or ()}
            removed = [r.name for r in message.tools_removed or () if r.name not in names]
            if removed:
                lines = "\n".join(f"- {name}" for name in removed)
                texts.append(
                    f"The following tools are no longer available. Do not call them:\n{lines}"
                )
            self.unavailable.update(dict.fromkeys(removed))
        text = "\n\n".join(t for t in texts if t)
        if text:
            out.append({"role": self.role, "content": kit.sanitize_surrogates(text)})
        return out

    def _notice(self) -> str:
        if not self.unavailable:
            return INCREMENTAL_TOOLS_NOTICE
        return f"{INCREMENTAL_TOOLS_NOTICE}\nStill unavailable: {', '.join(self.unavailable)}."
