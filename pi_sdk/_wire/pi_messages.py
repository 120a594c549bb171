"""pi-coding-agent's session message types, known to every transcript without registration.

A pi-coding-agent session (pi-mono ``packages/coding-agent``, ``core/messages.ts``) puts three
message roles of its own into the conversation besides the LLM ones; pi-sdk reads them as these
types so that a pi session continues in an :class:`pi_sdk.Agent` with the context pi's model
had, and survives pi-sdk's own session files without any registration:

* :class:`PiCustomMessage` (``role: "custom"``): an extension's message (a ``custom_message``
  entry); the model sees its content as a user message.
* :class:`PiBranchSummary` (``role: "branchSummary"``): the summary of a branch the
  conversation came back from (a ``branch_summary`` entry).
* :class:`PiCompactionSummary` (``role: "compactionSummary"``): the summary that replaced the
  compacted start of the conversation (a ``compaction`` entry).

:func:`pi_message_to_llm` is the conversion pi-coding-agent's ``convertToLlm`` applies (same
text, same prefixes). A type registered for one of these roles (``register_message_type``, a
plugin) takes precedence over these built-in ones.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_sdk.types import Message, TextContent, UserContent, UserMessage, WireModel, now_ms

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "PI_MESSAGE_TYPES",
    "PiBranchSummary",
    "PiCompactionSummary",
    "PiCustomMessage",
    "pi_message_to_llm",
]

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
"""Text before a compaction summary (pi-coding-agent ``COMPACTION_SUMMARY_PREFIX``)."""
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
"""Text before a branch summary (pi-coding-agent ``BRANCH_SUMMARY_PREFIX``)."""
BRANCH_SUMMARY_SUFFIX = "</summary>"


class PiCustomMessage(WireModel):
    """An extension's message in the conversation (pi-coding-agent ``CustomMessage``).

    JSON: ``{"role": "custom", "customType": "my-ext", "content": "...", "display": true,
    "details": {...}, "timestamp": 1767225600000}``.
    """

    role: Literal["custom"] = "custom"
    custom_type: str
    """The extension's identifier."""
    content: str | list[UserContent]
    """What the model sees, as a user message."""
    display: bool = True
    """Whether pi's TUI shows it."""
    details: Any = None
    """Extension data, never sent to the model."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch."""


class PiBranchSummary(WireModel):
    """The summary of an abandoned branch (pi-coding-agent ``BranchSummaryMessage``)."""

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    """The entry the conversation branched from (``"root"`` for the start)."""
    timestamp: int = Field(default_factory=now_ms)


class PiCompactionSummary(WireModel):
    """The summary of the compacted start (pi-coding-agent ``CompactionSummaryMessage``)."""

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    """Context tokens before the compaction."""
    timestamp: int = Field(default_factory=now_ms)


PI_MESSAGE_TYPES: dict[str, type[WireModel]] = {
    "custom": PiCustomMessage,
    "branchSummary": PiBranchSummary,
    "compactionSummary": PiCompactionSummary,
}
"""The built-in types by role."""


def pi_message_to_llm(
    message: PiCustomMessage | PiBranchSummary | PiCompactionSummary,
) -> list[Message]:
    """What the model sees for one of these messages: one user message (pi ``convertToLlm``)."""
    if isinstance(message, PiCustomMessage):
        content = message.content
        blocks: list[UserContent] = (
            [TextContent(text=content)] if isinstance(content, str) else list(content)
        )
        user: Message = UserMessage(content=blocks, timestamp=message.timestamp)
        return [user]
    if isinstance(message, PiBranchSummary):
        text = BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX
    else:
        text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
    summary: Message = UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
    return [summary]
