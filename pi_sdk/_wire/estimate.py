"""How many tokens a context will cost: a fast, dependency-free estimate, anchored on usage.

pi-coding-agent 0.73.1 ``core/compaction/compaction.ts`` (``estimateTokens``,
``estimateContextTokens``): four characters per token over the text the model reads (text,
thinking, tool names and JSON arguments, tool results; an image counts 1,200 tokens), and,
where the transcript holds a reply with reported usage, that usage for everything up to it
plus the estimate for the messages after it. pi-sdk also counts the system prompt and the
tool definitions (pi-mono leaves them to the usage), and a small per-message overhead.

Error bound, measured on the 95 recorded requests of the shared conformance set that report
usage (every API; tests/agent/test_estimate.py checks it, docs/context.md has the table): with
``E`` the estimate of the request, the vendor's reported input tokens ``R`` satisfied
``0.45 * E <= R <= 1.5 * E + 650``. The constant is each vendor's own framing, which no request
shows: tool-use and thinking preambles (Anthropic adds about 350 tokens when tools are offered),
structured-output schemas. On requests of 500 estimated tokens or more ``R / E`` was 0.82 to
1.88. Tokenizers differ by vendor and language (code, JSON and non-Latin scripts cost more tokens
per character): leave headroom, and prefer the usage anchor, which is exact where it applies.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pi_sdk.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    Usage,
    UserMessage,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD_TOKENS",
    "ContextEstimate",
    "block_chars",
    "chars_to_tokens",
    "estimate_context_tokens",
    "estimate_tokens",
    "usage_tokens",
]

CHARS_PER_TOKEN = 4
"""Characters per token of the estimate (pi-coding-agent's heuristic)."""
IMAGE_TOKENS = 1200
"""Tokens counted for one image (pi-coding-agent: 4,800 characters)."""
MESSAGE_OVERHEAD_TOKENS = 4
"""Tokens counted per message for its role and framing (a chat template's markers)."""


def chars_to_tokens(chars: int) -> int:
    """Tokens for ``chars`` characters of text: ``ceil(chars / 4)`` (pi-mono ``estimateTokens``)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def block_chars(blocks: Sequence[object]) -> tuple[int, int]:
    """``(characters, images)`` of content blocks, as the model reads them.

    Text, thinking, and a tool call's name plus its JSON arguments count their characters;
    each :class:`~pi_sdk.types.ImageContent` counts as one image; other objects count nothing.
    Shared by this module and :mod:`pi_sdk._stream.usage_estimate` (one rule for both estimates).
    """
    chars = images = 0
    for block in blocks:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += len(block.thinking)
        elif isinstance(block, ToolCall):
            chars += len(block.name) + len(json.dumps(block.arguments, ensure_ascii=False))
        elif isinstance(block, ImageContent):
            images += 1
    return chars, images


def estimate_tokens(message: Message) -> int:
    """Estimated tokens of one LLM message: ``ceil(chars / 4)`` + images + overhead.

    Counts user text, assistant text, thinking, tool-call names and JSON arguments, and
    tool-result text; each image is :data:`IMAGE_TOKENS`; every message adds
    :data:`MESSAGE_OVERHEAD_TOKENS`. Signatures and ids are not counted (the vendor does not
    bill the model for most of them).

    Args:
        message: A system, user, assistant or tool-result message (a system message counts
            its prompt text and the definitions of the tools it adds).

    Returns:
        Tokens (an int >= 0).
    """
    if isinstance(message, SystemMessage):
        chars, images = len(message.prompt_text), 0
        chars += _tool_chars(message.tools_added or ())
    elif isinstance(message, UserMessage) and isinstance(message.content, str):
        chars, images = len(message.content), 0
    else:
        chars, images = block_chars(message.content)
    return chars_to_tokens(chars) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS


def _tool_chars(tools: Sequence[Tool]) -> int:
    return sum(
        len(t.name) + len(t.description) + len(json.dumps(t.parameters, ensure_ascii=False))
        for t in tools
    )


def _tool_tokens(tools: Sequence[Tool]) -> int:
    return chars_to_tokens(_tool_chars(tools))


def usage_tokens(usage: Usage) -> int:
    """Tokens a reply's usage says its request and answer took (pi ``calculateContextTokens``).

    ``usage.total_tokens`` when set, else input + output + cache read + cache write: the size
    of the context the next request starts from.
    """
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


@dataclass(frozen=True)
class ContextEstimate:
    """An estimate of a context's tokens, and where it came from.

    Attributes:
        tokens: The estimate: ``usage_tokens + trailing_tokens``.
        usage_tokens: Tokens from the last reply with reported usage (0 without one).
        trailing_tokens: Estimated tokens of what the usage does not cover: the messages after
            that reply, or the whole context (system prompt and tools included) without one.
        last_usage_index: Index in the messages of the reply whose usage was used, or ``None``.
    """

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def _last_usage(messages: Sequence[Message], usage_from: int) -> int | None:
    for index in range(len(messages) - 1, max(usage_from, 0) - 1, -1):
        message = messages[index]
        if (
            isinstance(message, AssistantMessage)
            and message.stop_reason not in ("error", "aborted")
            and usage_tokens(message.usage) > 0
        ):
            return index
    return None


def estimate_context_tokens(
    context: Context | Sequence[Message], *, usage_from: int = 0
) -> ContextEstimate:
    """Estimate the input tokens of a request for ``context`` (pi ``estimateContextTokens``).

    With a reply in the messages that reported usage (not errored or aborted, nonzero), its
    usage (:func:`usage_tokens`) counts for everything up to and including it, and the messages
    after it are estimated (:func:`estimate_tokens`). Without one, everything is estimated,
    the system prompt and tool definitions included (four characters per token).

    Args:
        context: A :class:`pi_sdk.Context`, or its messages alone (no system prompt or tools).
        usage_from: Only replies at this index or later may supply usage (a context whose
            earlier replies were sent in a longer request, e.g. before a compaction).

    Returns:
        A :class:`ContextEstimate`; ``tokens`` is the figure to compare with a window.
    """
    if isinstance(context, Context):
        messages: Sequence[Message] = context.messages
        fixed = chars_to_tokens(len(context.system_prompt or ""))
        fixed += _tool_tokens(context.tools or ())
    else:
        messages, fixed = context, 0
    last = _last_usage(messages, usage_from)
    if last is None:
        trailing = fixed + sum(estimate_tokens(m) for m in messages)
        return ContextEstimate(trailing, 0, trailing, None)
    used = usage_tokens(messages[last].usage)  # type: ignore[union-attr]
    trailing = sum(estimate_tokens(m) for m in messages[last + 1 :])
    return ContextEstimate(used + trailing, used, trailing, last)
