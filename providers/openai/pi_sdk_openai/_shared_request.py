"""Request-building helpers both OpenAI wire APIs share: options, efforts, limits, images."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pi_sdk import (
    ConfigurationError,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
)
from pi_sdk.provider import ContextParts

__all__ = [
    "chat_tool_choice",
    "data_url",
    "declared_tools",
    "grammar_input",
    "grammar_inputs",
    "grammar_input_json",
    "max_output_tokens",
    "prompt_cache_key",
    "reasoning_effort",
    "responses_tool_choice",
    "tool_result_text",
]


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
    """Return the reasoning level to request, or ``None`` for "thinking off".

    ``provider_options["reasoning_effort"]`` wins (sent as given). Otherwise the unified
    ``options.reasoning`` level clamped to what the model supports
    (:meth:`pi_sdk.Model.clamp_thinking_level`, pi-ai 1.6 ``streamSimple``): ``"max"`` becomes
    ``"xhigh"`` or ``"high"`` where the model lacks it, and ``"off"`` is ``None``. Always
    ``None`` for a model without ``reasoning``. The caller maps the level to the server's value
    (``model.thinking_level_map``).

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
    if options.reasoning is None:
        return None
    level = model.clamp_thinking_level(options.reasoning)
    return None if level == "off" else level


def max_output_tokens(model: Model, options: StreamOptions, context: Context) -> int:
    """The output cap to send, in tokens: :meth:`pi_sdk.StreamOptions.resolved_max_tokens`.

    ``options.max_tokens``, else ``model.max_tokens``, fitted into the context window beside
    the estimated input (pi-ai 1.6 ``buildBaseOptions``).
    """
    return options.resolved_max_tokens(model, context)


PROMPT_CACHE_KEY_MAX_LENGTH = 64
"""OpenAI's longest ``prompt_cache_key``, in characters (pi-ai 1.6 clamps the session id)."""


def prompt_cache_key(session_id: str | None) -> str | None:
    """``session_id`` cut to :data:`PROMPT_CACHE_KEY_MAX_LENGTH` characters (code points)."""
    if session_id is None:
        return None
    return session_id[:PROMPT_CACHE_KEY_MAX_LENGTH]


def data_url(image: ImageContent) -> str:
    """Return ``data:<mime>;base64,<data>`` for an image block."""
    return f"data:{image.mime_type};base64,{image.data}"


def tool_result_text(message: ToolResultMessage) -> str:
    """The text blocks of a tool result joined with a newline (pi-mono)."""
    return "\n".join(b.text for b in message.content if isinstance(b, TextContent))


# --- grammar tools (pi-ai 1.6 constrained sampling; OpenAI "Custom tools") -----------------------


def declared_tools(parts: ContextParts) -> list[Tool]:
    """Every tool the request declares: in its system messages, then the request list."""
    named: dict[str, Tool] = {}
    for message in [parts.leading, *parts.messages]:
        if isinstance(message, SystemMessage):
            named.update((t.name, t) for t in message.tools_added or ())
    named.update((t.name, t) for t in parts.tools)
    return list(named.values())


def grammar_inputs(model: Model, tools: Sequence[Tool], supported: bool) -> dict[str, str]:
    """Tool name -> the argument that carries a call's free text, for the grammar tools.

    Those the request sends as custom tools (``supported``: compat
    ``supportsOpenAIGrammarTools``).

    Their calls come back as custom tool calls and go back as such (pi-ai 1.6
    ``createGrammarToolInputProperties``).

    Raises:
        ConfigurationError: a grammar tool without a usable variant or input property.
    """
    out: dict[str, str] = {}
    for tool in tools:
        grammar = tool.grammar(model, supported)
        if grammar is not None:
            out[tool.name] = grammar.input_property
    return out


def grammar_input(call: ToolCall, prop: str) -> str:
    """The free text of a grammar tool's call (its ``prop`` argument).

    Raises:
        ConfigurationError: the argument is not a string.
    """
    text = call.arguments.get(prop)
    if not isinstance(text, str):
        raise ConfigurationError(
            f"grammar tool call {call.name!r} ({call.id}) needs argument {prop!r} to be a"
            f" string, got {text!r:.80}"
        )
    return text


def grammar_input_json(prop: str, text: str) -> str:
    """The JSON arguments of a custom tool call: compact, non-ASCII kept.

    pi-ai 1.6 streams ``{"<prop>":"``, then each piece escaped, then ``"}``, which adds up to
    exactly this text.
    """
    return json.dumps({prop: text}, ensure_ascii=False, separators=(",", ":"))
