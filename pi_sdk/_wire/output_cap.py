"""The default output cap: the model's ``max_tokens``, fitted into what the context leaves free.

pi-ai 1.6 ``clampMaxTokensToContext`` (``api/simple-options.ts``, since 0.80.3), applied to every
request that sets no ``max_tokens`` of its own, and to an explicit one as well: the cap is
``model.max_tokens`` (or ``options.max_tokens``) but never more than the context window minus
the estimated input minus a safety margin. The margin is ``max(4096, 15% of the input)``
(OpenRouter counts input with its own tokenizer, up to 12% above the vendor's count); when that
leaves less than 32,768 tokens of output, only the fixed 4,096 is kept and output is capped at
32,768. The cap is at least 1.

The input estimate is pi-ai 1.6 ``estimateContextTokens`` (``utils/estimate.ts``), which this
module follows to the token so pi-sdk and pi send the same number: 3.5 characters a token
(JavaScript string lengths: UTF-16 code units), an image 4,800 characters, a tool call its name
plus its JSON arguments, the system prompt plus its tool definitions as JSON (a system message in
the history: its whole prompt text, sections included, plus the tools it adds and removes);
where the history holds a reply with reported usage (not errored or aborted), that usage stands
for everything up to it and only the later messages are estimated. pi-sdk's own,
vendor-calibrated estimate for compaction is :mod:`pi_sdk._wire.estimate`; this one exists for
request parity.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pi_sdk._wire.estimate import usage_tokens
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
    ToolReference,
)

__all__ = [
    "CONTEXT_SAFETY_TOKENS",
    "DEFAULT_THINKING_BUDGETS",
    "MIN_ANSWER_TOKENS",
    "clamp_max_tokens_to_context",
    "estimate_request_tokens",
    "fit_thinking_budget",
    "js_length",
    "thinking_budget_for_level",
]

CHARS_PER_TOKEN = 3.5
IMAGE_CHARS = 4800
CONTEXT_SAFETY_TOKENS = 4096
"""Tokens always left free beside the estimated input (pi-ai 1.6)."""
CONTEXT_SAFETY_RATIO = 0.15
MIN_OUTPUT_WITH_RATIO_MARGIN = 32768


def js_length(text: str) -> int:
    """The length JavaScript gives ``text``: UTF-16 code units (a non-BMP character counts 2)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _content_chars(content: str | Sequence[object]) -> int:
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += js_length(block.text)
        elif isinstance(block, ImageContent):
            chars += IMAGE_CHARS
    return chars


def _tools_tokens(tools: Sequence[Tool | ToolReference] | None) -> int:
    if not tools:
        return 0
    return _tokens(
        js_length(_json([tool.model_dump(mode="json", by_alias=True) for tool in tools]))
    )


def _message_tokens(message: Message) -> int:
    if isinstance(message, SystemMessage):  # a transcript system message (pi-ai 1.6)
        # Its whole prompt text, sections included (pi-ai 1.6 getSystemMessageText).
        tools = _tools_tokens(message.tools_added) + _tools_tokens(message.tools_removed)
        return _tokens(js_length(message.prompt_text)) + tools
    if not isinstance(message, AssistantMessage):
        return _tokens(_content_chars(message.content))
    return _tokens(sum(_reply_block_chars(block) for block in message.content))


def _reply_block_chars(block: object) -> int:
    """Characters of a reply block: text, thinking, or a call's name plus its JSON arguments."""
    if isinstance(block, TextContent):
        return js_length(block.text)
    if isinstance(block, ThinkingContent):
        return js_length(block.thinking)
    if isinstance(block, ToolCall):
        return js_length(block.name) + js_length(_json(block.arguments))
    return 0


def estimate_request_tokens(context: Context) -> int:
    """Estimated input tokens of ``context`` (pi-ai 1.6 ``estimateContextTokens``, see above)."""
    messages = context.messages
    anchor: int | None = None
    latest_prefix = -math.inf  # the system prompt's own message has timestamp 0 in pi-ai 1.6
    if context.system_prompt or context.tools:
        latest_prefix = 0
    for index, message in enumerate(messages):
        if (
            isinstance(message, AssistantMessage)
            and message.timestamp >= latest_prefix
            and message.stop_reason not in ("aborted", "error")
            and usage_tokens(message.usage) > 0
        ):
            anchor = index
        latest_prefix = max(latest_prefix, message.timestamp)
    if anchor is not None:
        reply = messages[anchor]
        assert isinstance(reply, AssistantMessage)
        trailing = sum(_message_tokens(m) for m in messages[anchor + 1 :])
        return usage_tokens(reply.usage) + trailing
    total = 0
    if context.system_prompt or context.tools:
        total += _tokens(js_length(context.system_prompt or "")) + _tools_tokens(context.tools)
    return total + sum(_message_tokens(m) for m in messages)


def clamp_max_tokens_to_context(context_window: int, context: Context, max_tokens: int) -> int:
    """``max_tokens`` fitted into ``context_window`` beside ``context``'s estimated input.

    pi-ai 1.6 ``clampMaxTokensToContext`` (see the module docstring). A window of 0 (unknown)
    leaves ``max_tokens`` as is. Tokens in, tokens out; the result is at least 1.
    """
    if context_window <= 0:
        return max(1, max_tokens)
    estimated = estimate_request_tokens(context)
    margin = max(CONTEXT_SAFETY_TOKENS, math.ceil(estimated * CONTEXT_SAFETY_RATIO))
    room = context_window - estimated - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(MIN_OUTPUT_WITH_RATIO_MARGIN, context_window - estimated - CONTEXT_SAFETY_TOKENS)
    return min(max_tokens, max(1, room))


DEFAULT_THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
"""Thinking tokens per level where ``thinking_budgets`` names none (pi-ai 1.6); ``xhigh`` and
``max`` take ``high``'s."""
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when a thinking budget shares the output cap."""


def thinking_budget_for_level(level: str, budgets: Mapping[str, int] | None) -> int:
    """The thinking budget of ``level`` (pi-ai 1.6 ``thinkingBudgetForLevel``), in tokens."""
    table = {**DEFAULT_THINKING_BUDGETS, **(budgets or {})}
    return table.get("high" if level in ("xhigh", "max") else level, table["high"])


def fit_thinking_budget(
    context_window: int,
    context: Context,
    base: int,
    model_max_tokens: int,
    level: str,
    budgets: Mapping[str, int] | None,
) -> tuple[int, int]:
    """``(max_tokens, thinking_budget)`` for budget-based thinking, in tokens.

    pi-ai 1.6 ``adjustMaxTokensForThinking`` then ``clampMaxTokensToContext``: the cap grows by
    the budget (``base`` is the already fitted cap) up to ``model_max_tokens``, is fitted into the
    window again, and the budget leaves at least 1,024 tokens of it for the answer.
    """
    budget = thinking_budget_for_level(level, budgets)
    max_tokens = min(base + budget, model_max_tokens)
    # pi-ai also cuts the budget here when max_tokens <= budget; the fitted cap below is never
    # larger (but for a cap of 0, which leaves no budget either way), so the cut below is that one.
    max_tokens = clamp_max_tokens_to_context(context_window, context, max_tokens)
    return max_tokens, min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
