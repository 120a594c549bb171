"""pi-sdk-compaction: keep an agent's conversation inside the model's context window.

:class:`Compactor` is an agent ``transform_context``: before a model call whose estimated
request passes a share of the window, it replaces the older turns with a summary written by a
model of your choice, keeping the newest turns verbatim and tool calls with their results. The
summary is a :class:`CompactionSummary` transcript message (``role: "compactionSummary"``),
registered by this plugin through the ``register_message_types`` hook with
:func:`summary_to_messages` as its ``convert_to_llm``: the model reads it as a user message.

Example:
    ```python
    from pi_sdk_compaction import Compactor

    compactor = Compactor(pi_sdk.get_model("anthropic", "claude-haiku-4-5"), threshold=0.8)
    compactor.attach(agent)
    await agent.prompt("...")
    ```
"""

from __future__ import annotations

from collections.abc import Callable

from pi_sdk import hookimpl

from .compactor import CompactionError, CompactionRecord, Compactor
from .cut import choose_cut
from .prompt import SYSTEM_PROMPT, serialize_conversation, summary_request
from .summary import COMPACTION_SUMMARY_ROLE, CompactionSummary, render, summary_to_messages

__all__ = [
    "COMPACTION_SUMMARY_ROLE",
    "SYSTEM_PROMPT",
    "CompactionError",
    "CompactionRecord",
    "CompactionSummary",
    "Compactor",
    "choose_cut",
    "register_message_types",
    "render",
    "serialize_conversation",
    "summary_request",
    "summary_to_messages",
]


@hookimpl
def register_message_types(register: Callable[..., None]) -> None:
    """Register :class:`CompactionSummary` with its ``convert_to_llm`` mapping."""
    register(CompactionSummary, summary_to_messages)
