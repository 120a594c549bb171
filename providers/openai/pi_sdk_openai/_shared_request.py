"""Request-building helpers both OpenAI wire APIs share: options, efforts, limits, images."""

from __future__ import annotations

from typing import Any

from pi_sdk import (
    ConfigurationError,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ToolResultMessage,
)

__all__ = [
    "DEFAULT_MAX_TOKENS_CAP",
    "chat_tool_choice",
    "data_url",
    "max_output_tokens",
    "reasoning_effort",
    "responses_tool_choice",
    "tool_result_text",
]

DEFAULT_MAX_TOKENS_CAP = 32_000
"""Output cap sent when ``options.max_tokens`` is unset: ``min(model.max_tokens, 32000)`` tokens
(pi-mono ``buildBaseOptions``: the simple API always sends a cap)."""

_XHIGH_MARKERS = ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6")


def chat_tool_choice(options: StreamOptions) -> str | dict[str, Any] | None:
    """Return ``StreamOptions.tool_choice`` in the Chat Completions shape (Mistral's too).

    ``"auto"``, ``"none"``, ``"required"`` or ``{"type": "function", "function": {"name"}}``.
    """
    resolved = options.resolved_tool_choice()
    if resolved is None:
        return None
    kind, name = resolved
    if kind == "tool":
        return {"type": "function", "function": {"name": name}}
    return kind


def responses_tool_choice(options: StreamOptions) -> str | dict[str, Any] | None:
    """Return ``StreamOptions.tool_choice`` in the Responses shape.

    ``"auto"``, ``"none"``, ``"required"`` or ``{"type": "function", "name"}``.
    """
    resolved = options.resolved_tool_choice()
    if resolved is None:
        return None
    kind, name = resolved
    return {"type": "function", "name": name} if kind == "tool" else kind


def reasoning_effort(model: Model, options: StreamOptions) -> str | None:
    """Return the reasoning effort to request, or ``None`` for "thinking off".

    ``provider_options["reasoning_effort"]`` wins (sent as given). Otherwise the unified
    ``options.reasoning`` level: ``xhigh`` is kept only for models that accept it (ids containing
    gpt-5.2/5.3/5.4 or opus-4-6/4.6, pi-mono ``supportsXhigh``) and becomes ``high`` elsewhere
    (pi-spec §3.3). Always ``None`` for a model without ``reasoning``.

    Raises:
        ConfigurationError: ``reasoning_effort`` is not a string.
    """
    if not model.reasoning:
        return None
    explicit: Any = options.provider_options.get("reasoning_effort")
    if explicit is not None:
        if not isinstance(explicit, str):
            raise ConfigurationError(f"reasoning_effort must be a string, got {explicit!r}")
        return explicit
    level = options.reasoning
    if level == "xhigh" and not any(marker in model.id for marker in _XHIGH_MARKERS):
        return "high"
    return level


def max_output_tokens(model: Model, options: StreamOptions) -> int:
    """``options.max_tokens``, else ``min(model.max_tokens, 32000)`` (tokens)."""
    if options.max_tokens is not None:
        return options.max_tokens
    return min(model.max_tokens, DEFAULT_MAX_TOKENS_CAP)


def data_url(image: ImageContent) -> str:
    """Return ``data:<mime>;base64,<data>`` for an image block."""
    return f"data:{image.mime_type};base64,{image.data}"


def tool_result_text(message: ToolResultMessage) -> str:
    """The text blocks of a tool result joined with a newline (pi-mono)."""
    return "\n".join(b.text for b in message.content if isinstance(b, TextContent))
