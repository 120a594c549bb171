"""What the summary model is asked: the conversation as plain text, and the summary's shape.

The facts follow pi-coding-agent 0.73.1 (``core/compaction``): the conversation is written out
as labelled text (not replayed as chat turns, so the model does not answer it), tool results are
cut to 2,000 characters, an earlier summary is handed over to be updated rather than rewritten,
and the summary has fixed sections (goal, constraints, progress, decisions, next steps, critical
context) keeping exact paths, names and error texts. The wording here is pi-sdk's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pi_sdk import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = [
    "SYSTEM_PROMPT",
    "TOOL_RESULT_MAX_CHARS",
    "serialize_conversation",
    "summary_request",
]

TOOL_RESULT_MAX_CHARS = 2000
"""Characters of a tool result kept in the text the summary model reads."""

SYSTEM_PROMPT = (
    "You write checkpoint summaries of conversations between a user and an AI assistant that"
    " uses tools. Another model will read your summary instead of the conversation and carry on"
    " the work from it. Output only the summary in the requested format: do not continue the"
    " conversation and do not answer anything asked in it."
)

_SECTIONS = """Write the summary in exactly these sections:

## Goal
What the user wants done (several items if the conversation covers several tasks).

## Constraints & Preferences
- Requirements and preferences the user stated, or "(none)".

## Progress
### Done
- [x] Work completed.
### In Progress
- [ ] Work under way.
### Blocked
- Problems in the way, if any.

## Key Decisions
- **Decision**: why it was taken.

## Next Steps
1. What should happen next, in order.

## Critical Context
- Data, examples and references needed to continue, or "(none)".

Be brief in every section. Keep file paths, function names, identifiers and error messages exactly
as written."""

_FIRST = (
    "The text in <conversation> above is a conversation to summarize. Write a structured"
    " checkpoint summary of it.\n\n" + _SECTIONS
)
_UPDATE = (
    "The text in <conversation> above continues a conversation summarized in <previous-summary>."
    " Update that summary with it: keep everything still true, add new progress, decisions and"
    " context, move finished items from In Progress to Done, and rewrite Next Steps. Drop only"
    " what no longer matters.\n\n" + _SECTIONS
)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters cut]"


def _user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def _call_text(call: ToolCall) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    return f"{call.name}({args})"


def _assistant_parts(message: AssistantMessage) -> list[str]:
    thinking = [
        b.thinking for b in message.content if isinstance(b, ThinkingContent) and b.thinking
    ]
    text = [b.text for b in message.content if isinstance(b, TextContent) and b.text]
    calls = [_call_text(b) for b in message.content if isinstance(b, ToolCall)]
    parts: list[str] = []
    if thinking:
        parts.append("Assistant (thinking): " + "\n".join(thinking))
    if text:
        parts.append("Assistant: " + "\n".join(text))
    if calls:
        parts.append("Assistant called: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Sequence[Message]) -> str:
    """LLM messages as labelled plain text, one paragraph per part.

    ``User: ...``, ``System: ...`` (a later system message's update), ``Assistant
    (thinking): ...``, ``Assistant: ...``, ``Assistant called:
    name(key=value, ...)``, ``Tool result (name): ...`` (cut to :data:`TOOL_RESULT_MAX_CHARS`;
    ``Tool error`` when it failed). Images and empty parts are left out; errored and aborted
    replies too (the vendor never saw them either).
    """
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            text = _user_text(message)
            if text:
                parts.append(f"User: {text}")
        elif isinstance(message, AssistantMessage):
            if message.stop_reason not in ("error", "aborted"):
                parts.extend(_assistant_parts(message))
        elif isinstance(message, SystemMessage):  # pi-ai 1.6: a prompt change mid-conversation
            if text := message.update_text:
                parts.append(f"System: {_clip(text, TOOL_RESULT_MAX_CHARS)}")
        elif isinstance(message, ToolResultMessage):  # pyright: ignore[reportUnnecessaryIsInstance]
            text = "".join(b.text for b in message.content if isinstance(b, TextContent))
            if text:
                label = "Tool error" if message.is_error else "Tool result"
                parts.append(f"{label} ({message.tool_name}): {_clip(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


def summary_request(
    conversation: str, previous_summary: str | None = None, instructions: str | None = None
) -> str:
    """The user message of one summary call: the conversation, the earlier summary, the task."""
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += _UPDATE if previous_summary else _FIRST
    if instructions:
        text += f"\n\nAlso focus on: {instructions}"
    return text
