"""Cross-provider history transform: make any stored history valid for the target model.

Every provider calls :func:`transform_messages` before converting messages to its wire format
(pi-mono ``transformMessages``, pi-spec §5). Two passes:

1. per assistant message, by whether it came from the same provider, API and model: thinking
   keeps its signature only for the same model, otherwise follows the foreign-reasoning policy;
   redacted thinking from another model is dropped; text signatures and tool-call thought
   signatures are dropped for another model; tool-call ids are normalized for the target and the
   same mapping is applied to their results;
2. errored and aborted assistant turns are skipped, and a tool call left without a result gets a
   synthetic error result before the next user or assistant message.

The input list and its messages are never mutated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from .options import ForeignReasoning
from .types import (
    AssistantContent,
    AssistantMessage,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["NO_RESULT_TEXT", "ToolCallIdNormalizer", "is_same_model", "transform_messages"]

ToolCallIdNormalizer: TypeAlias = Callable[[str, Model, AssistantMessage], str]
"""``normalize(id, target_model, source_message) -> id`` valid for the target API."""

NO_RESULT_TEXT = "No result provided"


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    """True when ``message`` came from ``model``'s provider, API and id."""
    return (
        message.provider == model.provider
        and message.api == model.api
        and message.model == model.id
    )


def _foreign_thinking(block: ThinkingContent, policy: ForeignReasoning) -> TextContent | None:
    if policy == "drop" or not block.thinking.strip():
        return None
    if policy == "tagged":
        return TextContent(text=f"<thinking>\n{block.thinking}\n</thinking>")
    return TextContent(text=block.thinking)


def _convert_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: ToolCallIdNormalizer | None,
    policy: ForeignReasoning,
    id_map: dict[str, str],
) -> AssistantMessage:
    same = is_same_model(message, model)
    content: list[AssistantContent] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.redacted:
                if same:
                    content.append(block)
                continue
            signed = bool(block.thinking_signature)
            if same and signed:
                content.append(block)
            elif not block.thinking.strip():
                continue
            elif same:
                content.append(block.model_copy(update={"thinking_signature": None}))
            else:
                converted = _foreign_thinking(block, policy)
                if converted is not None:
                    content.append(converted)
        elif isinstance(block, TextContent):
            content.append(block if same else TextContent(text=block.text))
        else:
            if same:
                content.append(block)
                continue
            new_id = normalize(block.id, model, message) if normalize is not None else block.id
            if new_id != block.id:
                id_map[block.id] = new_id
            content.append(block.model_copy(update={"id": new_id, "thought_signature": None}))
    return message.model_copy(update={"content": content})


def transform_messages(
    messages: list[Message],
    model: Model,
    *,
    normalize_tool_call_id: ToolCallIdNormalizer | None = None,
    foreign_reasoning: ForeignReasoning = "text",
) -> list[Message]:
    """Return a copy of ``messages`` that is valid history for ``model`` (pi-spec §5).

    Args:
        messages: Stored history (any provider's messages, in order).
        model: The target model.
        normalize_tool_call_id: Maps a foreign tool-call id to one the target API accepts.
        foreign_reasoning: ``drop``, ``text`` (pi-mono) or ``tagged`` for other models' thinking.
    """
    id_map: dict[str, str] = {}
    first: list[Message] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            first.append(
                _convert_assistant(message, model, normalize_tool_call_id, foreign_reasoning, id_map)
            )
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in id_map:
            first.append(message.model_copy(update={"tool_call_id": id_map[message.tool_call_id]}))
        else:
            first.append(message)

    result: list[Message] = []
    pending: list[ToolCall] = []
    seen: set[str] = set()

    def flush() -> None:
        for call in pending:
            if call.id not in seen:
                result.append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextContent(text=NO_RESULT_TEXT)],
                        is_error=True,
                    )
                )
        pending.clear()
        seen.clear()

    for message in first:
        if isinstance(message, AssistantMessage):
            flush()
            if message.stop_reason in ("error", "aborted"):
                continue
            pending.extend(b for b in message.content if isinstance(b, ToolCall))
            result.append(message)
        elif isinstance(message, ToolResultMessage):
            seen.add(message.tool_call_id)
            result.append(message)
        elif isinstance(message, UserMessage):  # pyright: ignore[reportUnnecessaryIsInstance]
            flush()
            result.append(message)
    return result
