"""An assistant turn of the history as a Chat Completions message (pi-ai 1.6)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pi_sdk
from pi_sdk.provider import sanitize_surrogates

from .._shared_request import grammar_input
from ._compat import CompletionsCompat
from ._google_signatures import google_signature
from ._reasoning_details import legacy_encrypted_detail, parse_reasoning_details

__all__ = ["REASONING_FIELDS", "TEXT_BLOCK_SEPARATOR", "assistant_message"]

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Delta fields compatible servers put reasoning in, in priority order (pi-mono: chutes.ai
sends duplicates, so only the first non-empty one of a delta counts)."""

TEXT_BLOCK_SEPARATOR = "\n\n"
"""Between the text blocks of one assistant turn, sent as one ``content`` string."""


def assistant_message(
    message: pi_sdk.AssistantMessage,
    compat: CompletionsCompat,
    *,
    reasoning_model: bool,
    grammar: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """One assistant turn as a Chat Completions message, or ``None`` when nothing is left.

    Text blocks joined with a blank line; earlier reasoning in the field it came in (or
    ``reasoning_content``), or as OpenRouter ``reasoning_details`` when the turn kept them;
    tool calls with Gemini's signatures (a call of a ``grammar`` tool, name -> its text
    argument, as a ``custom`` call); ``None`` for a turn with neither content nor calls.
    """
    texts: list[str] = []
    text_signature: str | None = None
    thinking: list[pi_sdk.ThinkingContent] = []
    details: list[dict[str, Any]] | None = None
    calls: list[pi_sdk.ToolCall] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text.strip():
                texts.append(block.text)
                text_signature = text_signature or block.text_signature
        elif isinstance(block, pi_sdk.ThinkingContent):
            if details is None:
                details = parse_reasoning_details(block.thinking_signature)
            if block.thinking.strip() and not block.redacted:
                thinking.append(block)
        elif isinstance(block, pi_sdk.ToolCall):
            calls.append(block)
    if details is None:  # the older form: one encrypted entry on each tool call
        legacy = [d for c in calls if (d := legacy_encrypted_detail(c.thought_signature))]
        details = legacy or None
    # Blocks are kept apart (pi-mono joins them with "", gluing e.g. another model's thinking,
    # now text, to the answer: "claude thinksfrom claude").
    text = TEXT_BLOCK_SEPARATOR.join(texts)
    entry: dict[str, Any] = {"role": "assistant"}
    empty = (
        ""
        if compat.requires_assistant_after_tool_result or compat.requires_non_null_assistant_content
        else None
    )
    content: str | None = text or empty
    reasoning: str | None = None
    if thinking:
        if compat.requires_thinking_as_text:
            # pi-mono prepends a text part and crashes when text exists (pi-spec §10.1 #2).
            joined = "\n\n".join(b.thinking for b in thinking)
            content = f"{joined}\n\n{text}" if text else joined
        elif details is None:  # reasoning_details replace the raw reasoning field (pi-ai 1.6)
            field = thinking[0].thinking_signature
            if compat.replays_reasoning_content:
                field = "reasoning_content"
            if field in REASONING_FIELDS:
                reasoning = "\n".join(b.thinking for b in thinking)
                entry[field] = reasoning
    entry["content"] = content
    if text_signature and content:
        entry["extra_content"] = google_signature(text_signature)
    if calls:
        entry["tool_calls"] = [_tool_call(call, grammar or {}) for call in calls]
        if compat.requires_reasoning_content and reasoning is None:
            entry["reasoning_content"] = ""
    if details:
        entry["reasoning_details"] = details
    if not content and not calls and reasoning is None and not details:
        return None
    if (
        compat.requires_reasoning_content_on_assistant_messages
        and reasoning_model
        and "reasoning_content" not in entry
    ):
        entry["reasoning_content"] = ""
    return entry


def _tool_call(call: pi_sdk.ToolCall, grammar: Mapping[str, str]) -> dict[str, Any]:
    prop = grammar.get(call.name)
    wire: dict[str, Any]
    if prop is not None:
        text = sanitize_surrogates(grammar_input(call, prop))
        wire = {"id": call.id, "type": "custom", "custom": {"name": call.name, "input": text}}
    else:
        arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        function = {"name": call.name, "arguments": arguments}
        wire = {"id": call.id, "type": "function", "function": function}
    signature = call.thought_signature
    if signature and not signature.startswith("{"):  # Gemini's (a JSON one is OpenRouter's)
        wire["extra_content"] = google_signature(signature)
    return wire
