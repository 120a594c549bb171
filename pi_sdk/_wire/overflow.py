"""Context overflow: is this failed (or silently cut) reply one whose request did not fit?

pi-ai 1.6 ``utils/overflow.ts`` (``isContextOverflow``, ``isRecoverableLength``): the vendors'
overflow error texts (pi-ai's 30 patterns),
the texts that look like one but are not (rate limits, throttling), and the two silent cases
where a server accepts an oversized request. The vendor patterns are pi-ai's, with the example
each vendor sends; pi-sdk adds its own HTTP error shapes (``"413 Content Too Large"`` and a bare
``"400 Bad Request"``, which is how a body-less 400/413 reads here, see
:func:`pi_sdk.provider.http_error_message`) and Bedrock's ``throttlingException`` frames.
"""

from __future__ import annotations

import re

from pi_sdk.types import AssistantMessage

__all__ = ["OVERFLOW_NOTE", "is_context_overflow", "is_overflow_text", "is_recoverable_length"]

OVERFLOW_NOTE = "context overflow: the request does not fit the model's context window"
"""What :func:`pi_sdk.provider.http_error_message` appends to an overflow error's text."""

_OVERFLOW = re.compile(
    "|".join(
        (
            r"prompt (?:is )?too long",  # Anthropic "prompt is too long: 213462 tokens > ...", z.ai
            r"prompt exceeds max length",  # z.ai CN endpoint
            r"request_too_large",  # Anthropic 413: request bytes over the limit
            r"input is too long for requested model",  # Amazon Bedrock ValidationException
            r"exceeds the context window",  # OpenAI Completions and Responses
            # OpenAI-compatible proxies (LiteLLM): "... exceeds the model's maximum context length
            # of 131072 tokens", "Input length (265330) exceeds model's maximum context length
            # (262144)"
            r"exceeds (?:the )?(?:model'?s )?maximum context length"
            r"(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
            r"context window exceeded",  # LiteLLM ContextWindowExceededError
            r"input token count.*exceeds the maximum",  # Gemini, Vertex
            r"maximum prompt length is \d+",  # xAI
            r"reduce the length of the messages",  # Groq, OpenAI's older text
            r"maximum context length is \d+ tokens",  # OpenRouter, OpenAI, vLLM
            # OpenRouter/Poolside: "Input length X exceeds the maximum allowed input length of Y"
            r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
            # Together: "The input (X tokens) is longer than the model's context length (Y tokens)."
            r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
            r"exceeds the limit of \d+",  # GitHub Copilot
            r"exceeds the available context size",  # llama.cpp server
            r"greater than the context length",  # LM Studio
            r"context window exceeds limit",  # MiniMax
            r"exceeded model token limit",  # Kimi For Coding
            r"too large for model with \d+ maximum context length",  # Mistral
            # DS4 server: "Prompt has X tokens, but the configured context size is Y tokens"
            r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
            r"model_context_window_exceeded",  # z.ai finish reason surfaced as an error
            r"prompt too long; exceeded (?:max )?context length",  # Ollama
            r"range of input length should be",  # DashScope / Qwen Token Plan
            r"context[_ ]length[_ ]exceeded",  # generic (OpenAI's error code)
            r"too many tokens",  # generic
            r"token limit exceeded",  # generic
            r"^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",  # any HTTP 413, as pi-ai words it
            r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",  # Cerebras, as the OpenAI SDK words it
            r"^4(?:00|13) [A-Za-z ]+$",  # a 400/413 without a body, as pi-sdk words it
            r"^413\b",  # HTTP 413: the request body itself is too large
            re.escape(OVERFLOW_NOTE),
        )
    ),
    re.IGNORECASE,
)

_NOT_OVERFLOW = re.compile(
    "|".join(
        (
            r"^(?:Throttling error|Service unavailable):",  # pi-ai's Bedrock texts
            r"throttlingexception",  # Bedrock's "Too many tokens, please wait" throttling
            r"rate limit",
            r"too many requests",  # HTTP 429
        )
    ),
    re.IGNORECASE,
)


def is_overflow_text(text: str) -> bool:
    """True if an error text says the request was larger than the model's context window.

    The vendor patterns of :func:`is_context_overflow`, without its silent cases. Texts that
    also name a rate limit or throttling are never an overflow (Bedrock throttles with "Too many
    tokens, please wait before trying again").
    """
    return _OVERFLOW.search(text) is not None and _NOT_OVERFLOW.search(text) is None


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True if ``message`` is a reply whose request did not fit the model's context window.

    Three cases (pi-ai 0.73.1 ``isContextOverflow``):

    1. ``stop_reason == "error"`` and ``error_message`` is a vendor's overflow error (Anthropic
       "prompt is too long", OpenAI "exceeds the context window", Gemini "input token count ...
       exceeds the maximum", Bedrock "Input is too long for requested model", Mistral "too large
       for model with N maximum context length", OpenRouter, xAI, Groq, llama.cpp, LM Studio,
       Ollama, MiniMax, Kimi, Cerebras' body-less 400/413, any HTTP 413), unless the text also
       names a rate limit or throttling.
    2. Silent overflow (z.ai): ``stop_reason == "stop"`` and ``usage.input + usage.cache_read``
       is over ``context_window``.
    3. Truncated input (Xiaomi MiMo): ``stop_reason == "length"``, no output tokens, and
       ``usage.input + usage.cache_read`` at least 99% of ``context_window``.

    Cases 2 and 3 need ``context_window`` (tokens, usually ``model.context_window``); without
    it only case 1 is checked. A server that truncates silently and reports nothing (some Ollama
    setups) cannot be detected.

    Args:
        message: A final assistant message (``stream(...).result()``, a transcript entry).
        context_window: The model's context window in tokens, for the silent cases.

    Returns:
        Whether the request overflowed; ``False`` for every other outcome, errors included.
    """
    if message.stop_reason == "error":
        return bool(message.error_message) and is_overflow_text(message.error_message or "")
    if not context_window:
        return False
    usage = message.usage
    prompt_tokens = usage.input + usage.cache_read
    if message.stop_reason == "stop":
        return prompt_tokens > context_window
    if message.stop_reason == "length":
        return usage.output == 0 and prompt_tokens >= context_window * 0.99
    return False


def is_recoverable_length(message: AssistantMessage, desired_max_output: int) -> bool:
    """True if ``message`` stopped at ``length`` below the output the caller wanted.

    pi-ai 1.6 ``isRecoverableLength``: such a reply was probably cut by context pressure (the
    output cap was fitted into what the window left,
    :meth:`pi_sdk.StreamOptions.resolved_max_tokens`)
    or by the provider, so one bounded compact-and-retry may help. ``desired_max_output`` is
    the cap before any fitting to the context (``options.max_tokens`` or ``model.max_tokens``),
    in tokens; 0 or less means unknown (always ``False``).
    """
    return (
        message.stop_reason == "length"
        and desired_max_output > 0
        and message.usage.output < desired_max_output
    )
