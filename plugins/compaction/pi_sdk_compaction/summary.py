"""The compaction summary: a transcript message of its own, shown to the model as user text.

A :class:`CompactionSummary` stands for the older turns a compaction replaced (pi-mono
coding-agent's ``compactionSummary`` message). :func:`summary_to_messages` is its
``convert_to_llm`` mapping: one user message that says what it is and holds the summary.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pi_sdk import Message, TextContent, UserMessage, now_ms
from pi_sdk.types import WireModel

__all__ = ["COMPACTION_SUMMARY_ROLE", "CompactionSummary", "render", "summary_to_messages"]

COMPACTION_SUMMARY_ROLE = "compactionSummary"
"""The message's ``role`` (pi-mono coding-agent ``CompactionSummaryMessage``)."""


class CompactionSummary(WireModel):
    """A summary of the turns a compaction replaced.

    JSON (camelCase, like every pi-sdk message: a :class:`pi_sdk.types.WireModel`)::

        {"role": "compactionSummary", "summary": "## Goal ...", "tokensBefore": 151234,
         "summarizedMessages": 412, "timestamp": 1767225600000}
    """

    role: Literal["compactionSummary"] = COMPACTION_SUMMARY_ROLE
    summary: str
    """The summary the summary model wrote (Markdown)."""
    tokens_before: int = 0
    """Estimated tokens of the context before this compaction."""
    summarized_messages: int = 0
    """How many transcript messages this summary replaces (earlier summaries' included)."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch, when the compaction ran."""


def render(summary: CompactionSummary) -> str:
    """Return the text the model reads for ``summary``."""
    return (
        "Earlier turns of this conversation were replaced by the summary below; continue from"
        f" it.\n\n<summary>\n{summary.summary.strip()}\n</summary>"
    )


def summary_to_messages(summary: CompactionSummary) -> list[Message]:
    """The summary's ``convert_to_llm``: one user message."""
    return [UserMessage(content=[TextContent(text=render(summary))], timestamp=summary.timestamp)]
