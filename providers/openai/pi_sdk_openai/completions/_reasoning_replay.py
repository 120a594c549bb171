"""Which OpenAI-compatible servers need earlier reasoning sent back, and how (issue 12, defect 5).

Some thinking models served over Chat Completions reject a history whose assistant messages lack
their reasoning: DeepSeek's thinking mode answers 400 ("Missing reasoning_content field in the
assistant message", DeepSeek "Thinking mode" guide) and Kimi's thinking models want the
``reasoning_content`` of a tool-call turn back (Moonshot, "kimi thinking" tool use). This table
is the one place that says which servers these are; :func:`pi_sdk_openai.completions.detect_compat`
reads it, and the flags it sets drive both the history transform (another model's thinking stays
reasoning, :func:`pi_sdk.provider.transform_messages` ``reasoning_content=True``, instead of
becoming text) and the request (the field, ``""`` where there is no reasoning).

A server is matched by ``model.provider`` or by a host fragment of ``model.base_url`` (pi-ai
0.73 ``detectCompat`` matches DeepSeek so: provider ``deepseek`` or ``deepseek.com``). The flags
can still be set by hand in ``model.compat`` (``requiresReasoningContent``,
``requiresReasoningContentOnAssistantMessages``), which wins over the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pi_sdk import Model

__all__ = [
    "REASONING_REPLAY",
    "ReasoningReplay",
    "reasoning_replay",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningReplay:
    """One server's requirement for replaying reasoning."""

    name: str
    providers: tuple[str, ...]
    """``model.provider`` values that are this server."""
    hosts: tuple[str, ...]
    """Fragments of ``model.base_url`` that are this server."""
    messages: Literal["assistant", "tool_calls"]
    """Where ``reasoning_content`` must be: every assistant message, or those with tool calls."""
    source: str
    """Where the requirement is documented."""

    def matches(self, model: Model) -> bool:
        """True when ``model`` is served by this server (provider or base URL)."""
        url = model.base_url
        return model.provider in self.providers or any(host in url for host in self.hosts)


REASONING_REPLAY: tuple[ReasoningReplay, ...] = (
    ReasoningReplay(
        name="DeepSeek",
        providers=("deepseek",),
        hosts=("deepseek.com",),
        messages="assistant",
        source="pi-ai 0.73 detectCompat (requiresReasoningContentOnAssistantMessages for"
        " provider deepseek or deepseek.com); DeepSeek thinking-mode guide",
    ),
    ReasoningReplay(
        name="Moonshot Kimi",
        providers=("moonshotai", "moonshotai-cn"),
        hosts=("api.moonshot.",),
        messages="tool_calls",
        source="Moonshot kimi thinking models: reasoning_content kept on tool-call turns"
        " (pi-ai 0.73 detects the host, not this requirement)",
    ),
)
"""The servers, in match order (the first that matches applies)."""


def reasoning_replay(model: Model) -> ReasoningReplay | None:
    """Return the table entry for ``model``, or ``None``.

    Only reasoning models (``model.reasoning``) have a requirement: a model that never thinks has
    no reasoning to send back.
    """
    if not model.reasoning:
        return None
    return next((rule for rule in REASONING_REPLAY if rule.matches(model)), None)
