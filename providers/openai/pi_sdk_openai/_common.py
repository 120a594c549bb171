"""Request-building helpers both OpenAI wire APIs share: options, efforts, limits, images, ids."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, cast

from pi_sdk.provider import (
    AssistantMessage,
    ConfigurationError,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ToolResultMessage,
    fit_id,
    sanitize_tool_call_id,
)

__all__ = [
    "DEFAULT_MAX_TOKENS_CAP",
    "EFFORTS",
    "as_dict",
    "as_list",
    "check_provider_options",
    "data_url",
    "max_output_tokens",
    "normalize_completions_tool_call_id",
    "normalize_responses_tool_call_id",
    "reasoning_effort",
    "tool_result_text",
]

DEFAULT_MAX_TOKENS_CAP = 32_000
"""Output cap sent when ``options.max_tokens`` is unset: ``min(model.max_tokens, 32000)`` tokens
(pi-mono ``buildBaseOptions``: the simple API always sends a cap)."""

EFFORTS = ("minimal", "low", "medium", "high", "xhigh")
_XHIGH_MARKERS = ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6")


def check_provider_options(options: StreamOptions, known: Collection[str], api: str) -> None:
    """Reject ``provider_options`` keys this API does not read.

    Raises:
        ConfigurationError: an unknown key (a typo would otherwise be silently ignored).
    """
    unknown = sorted(set(options.provider_options) - set(known))
    if unknown:
        raise ConfigurationError(
            f"{api}: unknown provider_options {', '.join(map(repr, unknown))}"
            f" (known: {', '.join(sorted(known))})"
        )


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


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}`` (typed access to parsed JSON)."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` if it is a JSON array, else ``[]``."""
    return cast("list[Any]", value) if isinstance(value, list) else []


_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def _normalize_call_id(tool_call_id: str, max_len: int) -> str:
    call_part, sep, _ = tool_call_id.partition("|")
    if not sep:
        return sanitize_tool_call_id(tool_call_id, max_len=max_len)
    # Always hashed: the dropped item part may be all that told two ids apart.
    return fit_id(tool_call_id, _UNSAFE_ID_CHARS.sub("_", call_part), max_len)


def normalize_responses_tool_call_id(
    tool_call_id: str, model: Model, source: AssistantMessage
) -> str:
    """Make another model's tool-call id a valid Responses ``call_id``: ``[a-zA-Z0-9_-]``, ≤ 64.

    pi-sdk stores a Responses tool call id as ``"<call_id>|<function_call item id>"``. A
    normalizer only sees calls from *another* model, and an ``fc_…`` item id minted elsewhere is
    never replayed (OpenAI pairs ``fc_`` items with reasoning items of the same response, which a
    foreign turn does not carry; pi-mono drops it for a different model of the same provider), so
    the item part is dropped and the adapter sends the call without an item ``id``. The result
    never contains ``|``; distinct ids stay distinct (:func:`pi_sdk.fit_id`). The
    :data:`pi_sdk.ToolCallIdNormalizer` passed to :func:`pi_sdk.transform_messages` (pi-spec
    §4.3).
    """
    del model, source
    return _normalize_call_id(tool_call_id, 64)


def normalize_completions_tool_call_id(
    tool_call_id: str, model: Model, source: AssistantMessage
) -> str:
    """Make another model's tool-call id valid for Chat Completions: ``[a-zA-Z0-9_-]``, ≤ 40.

    OpenAI rejects ``tool_call_id`` values longer than 40 characters (pi-spec §4.2, §4.13); a
    Responses ``call|item`` id keeps its call part. Applied to every compatible server: the shape
    is accepted everywhere and the mapping is applied to the results too.
    """
    del model, source
    return _normalize_call_id(tool_call_id, 40)
