"""Anthropic Messages requests: the ``POST /v1/messages`` body, from pi types.

pi-mono ``providers/anthropic.ts`` ``buildParams`` / ``convertMessages`` / ``createClient`` and
``streamSimpleAnthropic`` (pi-spec §4.1, §3.3), with the deviations listed in
``docs/providers/anthropic.md``. Pure functions: no I/O and no vendor SDK, so they can be unit
tested and reused (e.g. by an ``on_payload`` hook author who wants to see what is sent).
The per-request headers (betas, OAuth) come from :mod:`pi_sdk_anthropic._client`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pi_sdk
from pi_sdk import provider as kit

from .._client import supports_structured_outputs
from ._compat import adaptive, cache_control_of, can_turn_off, resolve_anthropic_compat
from ._documents import DOCUMENTS
from ._effort import EFFORTS, effort_marker, managed, mid_convo_effort, thinking_request
from ._media import media_block, tool_result_block
from ._server_tools import SERVER_TOOL_DEFINITIONS
from ._system import DEFERRED_TOOL_PLACEHOLDER, read_parts, system_message, tool_definitions
from ._tools import (
    convert_tools,
    neutral_tool_choice,
    normalize_tool_call_id,
    to_claude_code_name,
    tool_loop_without_thinking,
)

if TYPE_CHECKING:
    from pi_sdk.provider import ContextParts

__all__ = [
    "API",
    "PROVIDER_OPTION_KEYS",
    "REDACTED_THINKING_TEXT",
    "build_request",
    "convert_messages",
    "normalize_tool_call_id",
]

API = "anthropic-messages"
"""The wire API id."""

PROVIDER_OPTION_KEYS = frozenset(
    {
        "thinking_enabled",
        "thinking_budget_tokens",
        "thinking_display",
        "effort",
        "interleaved_thinking",
        "tool_choice",
    }
)
"""Keys of ``StreamOptions.provider_options`` this API reads (pi-mono ``AnthropicOptions``)."""

REDACTED_THINKING_TEXT = "[Reasoning redacted]"
"""The ``thinking`` text of a redacted-thinking block (pi-mono)."""

_CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."

# --- request ----------------------------------------------------------------------------------


def _user_content(message: pi_sdk.UserMessage) -> str | list[dict[str, Any]] | None:
    if isinstance(message.content, str):
        return kit.sanitize_surrogates(message.content) if message.content.strip() else None
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": kit.sanitize_surrogates(block.text)})
        else:
            blocks.append(media_block(block))
    return blocks or None


def _assistant_content(message: pi_sdk.AssistantMessage, oauth: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text.strip():
                text: dict[str, Any] = {"type": "text", "text": kit.sanitize_surrogates(block.text)}
                cited = [c.raw for c in block.citations or () if c.raw is not None]
                if cited:  # the same source's citations (the transform drops others')
                    text["citations"] = cited
                blocks.append(text)
        elif isinstance(block, pi_sdk.ThinkingContent):
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature or ""})
            elif not block.thinking.strip():
                continue
            elif not (block.thinking_signature or "").strip():
                # Unsigned thinking (e.g. from an aborted stream) is replayed as plain text,
                # without tags, so the model does not start imitating them (pi-mono).
                blocks.append({"type": "text", "text": kit.sanitize_surrogates(block.thinking)})
            else:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": kit.sanitize_surrogates(block.thinking),
                        "signature": block.thinking_signature,
                    }
                )
        elif isinstance(block, pi_sdk.ServerToolCall | pi_sdk.ServerToolResult):
            if block.raw is not None:  # the same source's block, replayed as it came
                blocks.append(block.raw)
        elif isinstance(block, pi_sdk.ToolCall):  # (Claude makes no images to send back)
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": to_claude_code_name(block.name) if oauth else block.name,
                    "input": block.arguments,
                }
            )
    return blocks


def convert_messages(
    context: pi_sdk.Context,
    model: pi_sdk.Model,
    *,
    oauth: bool = False,
    cache_control: dict[str, Any] | None = None,
    foreign_reasoning: pi_sdk.ForeignReasoning = "drop",
    origin: str | None = None,
    parts: ContextParts | None = None,
    definitions: Callable[[list[pi_sdk.Tool]], list[dict[str, Any]]] | None = None,
    effort: str | None = None,
) -> list[dict[str, Any]]:
    """Convert pi messages to Anthropic ``messages`` (pi-mono ``convertMessages``).

    ``parts``/``definitions``: the context as :func:`._system.read_parts` reads it, and the
    tool converter when tool changes are native (later system messages: see :mod:`._system`).

    :func:`pi_sdk.provider.transform_messages` runs first (Anthropic tool-call ids, foreign
    thinking per
    ``foreign_reasoning``, images for text-only models, orphaned tool calls; ``origin`` is where
    the request goes, see :func:`pi_sdk.provider.signature_origin`). Then blank text and thinking
    are
    dropped, unsigned thinking becomes plain text, redacted thinking goes back as
    ``redacted_thinking``, consecutive tool results merge into one user message, and with
    ``cache_control`` the last block of a final user message gets it.

    ``effort`` (:func:`mid_convo_effort`): each earlier reply of this provider on this API that
    recorded a ``provider_thinking_level`` gets an :func:`effort_marker` of that level before it,
    and one of ``effort`` ends the list (pi-ai 1.6 ``insertThinkingLevelMessages``).

    Returns:
        A list of ``{"role": "user" | "assistant", "content": ...}`` dicts.
    """
    parts = parts or read_parts(model, context)[0]
    history = kit.transform_messages(
        parts.messages,
        model,
        normalize_tool_call_id=normalize_tool_call_id,
        foreign_reasoning=foreign_reasoning,
        origin=origin,
        documents=DOCUMENTS,
    )
    out: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []  # system messages wait for the next assistant message
    index = 0
    while index < len(history):
        message = history[index]
        index += 1
        if isinstance(message, pi_sdk.SystemMessage):
            entry = system_message(message, parts, oauth=oauth, definitions=definitions)
            held.extend([entry] if entry is not None else [])
        elif isinstance(message, pi_sdk.UserMessage):
            content = _user_content(message)
            if content is not None:
                out.append({"role": "user", "content": content})
        elif isinstance(message, pi_sdk.AssistantMessage):
            blocks = _assistant_content(message, oauth)
            if blocks:
                out.extend(held)
                held = []
                level = message.provider_thinking_level
                if effort is not None and level in EFFORTS and managed(message, model):
                    out.append(effort_marker(level))
                out.append({"role": "assistant", "content": blocks})
        else:
            results = [tool_result_block(message)]
            while index < len(history) and isinstance(history[index], pi_sdk.ToolResultMessage):
                following = history[index]
                assert isinstance(following, pi_sdk.ToolResultMessage)
                results.append(tool_result_block(following))
                index += 1
            out.append({"role": "user", "content": results})
    out.extend(held)
    if cache_control is not None and out and out[-1]["role"] in ("user", "system"):
        last = out[-1]
        last_content: str | list[dict[str, Any]] = last["content"]
        if isinstance(last_content, str):
            last_content = [{"type": "text", "text": last_content}]
            last["content"] = last_content
        last_content[-1]["cache_control"] = dict(cache_control)
    if effort is not None:
        out.append(effort_marker(effort))
    return out


def build_request(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions,
    *,
    oauth: bool = False,
    origin: str | None = None,
    prefer_strict: bool = True,
) -> dict[str, Any]:
    """Build the ``POST /v1/messages`` body (pi-mono ``buildParams`` + ``streamSimpleAnthropic``).

    Args:
        model: Target model (``id``, ``max_tokens``, ``reasoning``, ``input``, ``base_url``).
        context: System prompt, messages and tools.
        options: ``max_tokens`` (default ``min(model.max_tokens, 32000)``), ``reasoning``
            (unified level; thinking off when ``None``), ``thinking_budgets``, ``temperature``
            (sent only while thinking is off), ``cache_retention``, ``metadata`` (``user_id``),
            and ``provider_options``: ``thinking_enabled``, ``thinking_budget_tokens``,
            ``effort`` (``low``/``medium``/``high``/``max``), ``interleaved_thinking``,
            ``tool_choice`` (``"auto"``/``"any"``/``"none"`` or ``{"type": "tool", "name"}``),
            ``thinking_display`` (``thinking.display``: ``"summarized"``, the default as pi-ai
            0.73 sends it, so Opus 4.7 streams summarized thinking like older Claude 4 models,
            or ``"omitted"``). Explicit provider options win over what ``reasoning`` implies.
        oauth: Claude Code OAuth mode (identity system block, canonical tool-name casing).
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`), when that is not
            ``model.base_url``.
        prefer_strict: ``False``: ``strict: "prefer"`` tools go non-strict (sent again).

    Returns:
        The JSON body, with ``"stream": true``.

    Raises:
        ConfigurationError: an unknown ``provider_options`` key.
    """
    extra = kit.check_provider_options(options, PROVIDER_OPTION_KEYS, API)
    compat = resolve_anthropic_compat(model)
    is_adaptive = adaptive(model, compat)
    max_tokens = options.resolved_max_tokens(model, context)
    budget: int | None = None
    if options.reasoning is not None and model.reasoning and not is_adaptive:
        max_tokens, budget = options.resolved_thinking_budget(model, context)
    thinking_enabled, effort = thinking_request(model, options, extra, is_adaptive)
    budget = extra.get("thinking_budget_tokens", budget)
    marker_effort = mid_convo_effort(model, options)

    cache_control = cache_control_of(options, compat)
    payload: dict[str, Any] = {"model": model.id, "max_tokens": max_tokens, "stream": True}
    system: list[dict[str, Any]] = []
    output = options.resolved_output()
    forced = output is not None and (
        output.mode == "tool" or (output.mode == "auto" and not supports_structured_outputs(model))
    )
    forced_tools = [kit.output_tool(output)] if output is not None and forced else []
    parts, native = read_parts(model, context, extra_tools=forced_tools)
    if oauth:
        system.append({"type": "text", "text": _CLAUDE_CODE_IDENTITY})
    if parts.system_prompt:
        system.append({"type": "text", "text": kit.sanitize_surrogates(parts.system_prompt)})
    if system:
        if cache_control is not None:
            for block in system:
                block["cache_control"] = dict(cache_control)
        payload["system"] = system
    payload["messages"] = convert_messages(
        context,
        model,
        oauth=oauth,
        cache_control=cache_control,
        foreign_reasoning=options.foreign_reasoning,
        origin=origin,
        parts=parts,
        definitions=tool_definitions(model, oauth, prefer_strict) if native else None,
        effort=marker_effort,
    )
    if (
        options.temperature is not None
        and not thinking_enabled
        and compat.supports_temperature
        and not compat.supports_mid_convo_effort
    ):
        payload["temperature"] = options.temperature
    if parts.tools or context.tools == []:
        tools = convert_tools(
            parts.tools,
            model,
            oauth=oauth,
            cache_control=cache_control if compat.supports_cache_control_on_tools else None,
            prefer_strict=prefer_strict,
        )
        payload["tools"] = [*tools, DEFERRED_TOOL_PLACEHOLDER] if native else tools
    requested_off = not thinking_enabled
    if thinking_enabled and model.reasoning and tool_loop_without_thinking(payload["messages"]):
        # Anthropic requires the assistant turn that made the pending tool calls to start with a
        # (signed) thinking block when thinking is on; history from another model, or an
        # aborted turn, has none, and the API would answer 400. This request goes without
        # thinking; the next user turn starts a new loop where thinking is on again.
        thinking_enabled = False
    display = extra.get("thinking_display", "summarized")
    if marker_effort is not None:
        # pi-ai 1.6: the markers set each reply's effort; the top-level one is part of the
        # cached prompt, so it stays "low" (an organization may cap effort), and a block from a
        # mismatched prefix is dropped instead of failing the request.
        payload["thinking"] = {
            "type": "adaptive",
            "display": display,
            "block_binding": {"prefix_mismatch_behavior": "drop_block"},
        }
        payload["output_config"] = {"effort": "low"}
    elif thinking_enabled and model.reasoning:
        if is_adaptive:
            payload["thinking"] = {"type": "adaptive", "display": display}
            if effort:
                payload["output_config"] = {"effort": effort}
        else:
            payload["thinking"] = {
                "type": "enabled",
                "budget_tokens": budget or 1024,
                "display": display,
            }
    elif model.reasoning and requested_off and can_turn_off(model):
        # pi-ai 1.6: reasoning off on a thinking model says so, so it does not think by default,
        # unless its level map says it cannot be turned off (``off: null``).
        payload["thinking"] = {"type": "disabled"}
    user_id = (options.metadata or {}).get("user_id")
    if isinstance(user_id, str):
        payload["metadata"] = {"user_id": user_id}
    tool_choice = extra.get("tool_choice", neutral_tool_choice(options))
    if output is not None and forced:
        # Anthropic refuses a forced tool while thinking is on (only auto/none): then the
        # tool is offered and the answer may also come as text, which is parsed the same.
        tool_choice = (
            {"type": "auto"}
            if "thinking" in payload and payload["thinking"]["type"] != "disabled"
            else {"type": "tool", "name": kit.OUTPUT_TOOL_NAME}
        )
    elif output is not None:  # structured outputs (GA): output_config.format
        config = payload.setdefault("output_config", {})
        config["format"] = {"type": "json_schema", "schema": output.wire_schema}
    if isinstance(tool_choice, str):
        payload["tool_choice"] = {"type": tool_choice}
    elif tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if compat.allowed_fallback_models:
        payload["fallbacks"] = [{"model": name} for name in compat.allowed_fallback_models]
    if options.server_tools:  # tools Anthropic runs itself (docs/server-tools.md)
        server = options.resolved_server_tools(model, SERVER_TOOL_DEFINITIONS)
        payload["tools"] = [*payload.get("tools", ()), *server]
    return payload
