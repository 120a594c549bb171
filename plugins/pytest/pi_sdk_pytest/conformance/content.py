"""Comparing replies: the same reply twice, and a partial reply against the whole one."""

from __future__ import annotations

from typing import Any

from pi_sdk import AssistantMessage

__all__ = ["blocks", "kept_size", "not_a_prefix", "reply_difference"]


def blocks(message: AssistantMessage) -> list[tuple[Any, ...]]:
    """The message's content as comparable tuples (signatures and tool-call ids included)."""
    out: list[tuple[Any, ...]] = []
    for block in message.content:
        if block.type == "text":
            out.append(("text", block.text, block.text_signature))
        elif block.type == "thinking":
            out.append(("thinking", block.thinking, block.thinking_signature))
        elif block.type == "toolCall":
            out.append(("toolCall", block.id, block.name, block.arguments))
        else:
            out.append((block.type,))
    return out


def reply_difference(first: AssistantMessage, second: AssistantMessage) -> str | None:
    """How two replies to the same body differ (content, stop reason, tokens), or ``None``."""
    for what, a, b in (
        ("content", blocks(first), blocks(second)),
        ("stop_reason", first.stop_reason, second.stop_reason),
        ("error_message", first.error_message, second.error_message),
        ("usage", _tokens(first), _tokens(second)),
    ):
        if a != b:
            return f"{what} {_short(a)} != {_short(b)}"
    return None


def not_a_prefix(kept: AssistantMessage, whole: AssistantMessage) -> str | None:
    """Why ``kept`` (a cut reply's content) is not the start of ``whole``'s, or ``None``.

    Each kept block is the whole reply's block at that position, of the same kind; a text or
    thinking block's text begins the whole block's text; a tool call has the same id and name.
    """
    if len(kept.content) > len(whole.content):
        return f"{len(kept.content)} blocks kept, the whole reply has {len(whole.content)}"
    for index, (part, full) in enumerate(zip(blocks(kept), blocks(whole), strict=False)):
        if part[0] != full[0]:
            return f"block {index} is {part[0]}, the whole reply's is {full[0]}"
        if part[0] in ("text", "thinking") and not str(full[1]).startswith(str(part[1])):
            return f"{part[0]} block {index} {_short(part[1])} does not begin {_short(full[1])}"
        if part[0] == "toolCall" and part[1:3] != full[1:3]:
            return f"tool call {index} {part[1:3]} is not {full[1:3]}"
    return None


def kept_size(message: AssistantMessage) -> int:
    """How much content a message holds: its blocks plus the characters of its text."""
    return len(message.content) + sum(
        len(str(block[1])) for block in blocks(message) if block[0] in ("text", "thinking")
    )


def _tokens(message: AssistantMessage) -> tuple[int, int, int, int]:
    usage = message.usage
    return (usage.input, usage.output, usage.cache_read, usage.cache_write)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
