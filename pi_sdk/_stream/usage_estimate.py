"""An estimated usage for a reply that was aborted or cut before the vendor reported one.

Chat Completions reports usage only in its last chunk, Anthropic its output tokens only in
``message_delta``: a reply aborted or cut before then would show 0 tokens and $0, though the
vendor billed the request (issue 12, defect 3). :func:`estimate_missing_usage` fills the
counts the vendor never sent with an estimate, about 4 characters a token (the rule pi-mono's
coding agent uses to size a context, images 1,200 tokens), marks the message
``usage_estimated`` and records a ``usage_estimated`` :class:`~pi_sdk.types.Diagnostic`. Counts the
vendor did report are kept as they are.

Only failures call it, so a text-only consumer's events cost nothing more.
"""

from __future__ import annotations

import json

from pi_sdk._wire.cost import calculate_cost
from pi_sdk._wire.estimate import CHARS_PER_TOKEN, IMAGE_TOKENS, block_chars, chars_to_tokens
from pi_sdk.types import (
    AssistantMessage,
    Context,
    Diagnostic,
    Model,
    SystemMessage,
    Tool,
)

__all__ = ["context_chars", "estimate_missing_usage"]

IMAGE_CHARS = IMAGE_TOKENS * CHARS_PER_TOKEN
"""An image counts as 4,800 characters, 1,200 tokens (pi-mono's estimate)."""


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return len(content)
    if not isinstance(content, list):
        return 0
    chars, images = block_chars(content)  # pyright: ignore[reportUnknownArgumentType]
    return chars + images * IMAGE_CHARS


def context_chars(context: Context) -> int:
    """The characters of what a request sends: system prompt, messages and tool definitions."""
    chars = len(context.system_prompt or "")
    for message in context.messages:
        if isinstance(message, SystemMessage):
            chars += len(message.prompt_text) + _tools_chars(message.tools_added or [])
        else:
            chars += _content_chars(message.content)
    return chars + _tools_chars(context.tools or [])


def _tools_chars(tools: list[Tool]) -> int:
    return sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in tools)


def estimate_missing_usage(
    message: AssistantMessage, model: Model, context: Context | None, *, reason: str
) -> None:
    """Estimate the usage counts the vendor did not report, in place.

    ``input`` is estimated from ``context`` when the vendor reported no input, cache-read nor
    cache-write tokens; ``output`` from the message's content when it reported no output
    tokens (and something streamed). When anything was estimated the cost is recomputed from
    ``model.cost``, ``message.usage_estimated`` is set and a ``usage_estimated`` diagnostic
    (``details``: ``input``, ``output``, ``reason``) is appended. Nothing happens when the
    vendor's usage is complete.

    Args:
        message: The aborted or cut reply.
        model: Prices the estimate (USD per million tokens).
        context: The request; ``None`` leaves ``input`` as reported.
        reason: Why the reply ended early (``"aborted"``, ``"cut"``), kept in the diagnostic.
    """
    usage = message.usage
    estimated_input = estimated_output = 0
    if context is not None and not (usage.input or usage.cache_read or usage.cache_write):
        estimated_input = chars_to_tokens(context_chars(context))
    if not usage.output:
        estimated_output = chars_to_tokens(_content_chars(message.content))
    if not (estimated_input or estimated_output):
        return
    if estimated_input:
        usage.input = estimated_input
    if estimated_output:
        usage.output = estimated_output
    usage.update_total()
    calculate_cost(model, usage)
    message.usage_estimated = True
    details: dict[str, object] = {"reason": reason}
    if estimated_input:
        details["input"] = estimated_input
    if estimated_output:
        details["output"] = estimated_output
    message.diagnostics = [
        *(message.diagnostics or []),
        Diagnostic(type="usage_estimated", details=details),
    ]
