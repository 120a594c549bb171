"""``openai-completions`` request: Context + StreamOptions → the Chat Completions body.

Request (:func:`build_payload`, pi-spec §4.2): system prompt and messages (:mod:`._system`),
user text and images, assistant history (text as one string, tool calls, earlier reasoning in
the field the server sent it in), tool results (text in the ``tool`` message; their images in
one user message after the run of results), tools, ``reasoning_effort`` (or the server's own
switch), the max-tokens field, ``stream_options``, ``store: false``. Servers differ by the
flags of :mod:`pi_sdk_openai.completions._compat` (pi-spec §1.7).

``provider_options`` keys: ``tool_choice`` (``"auto"``, ``"none"``, ``"required"`` or
``{"type": "function", "function": {"name": ...}}``) and ``reasoning_effort`` (a string sent
as is, overriding ``options.reasoning``).
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk import provider as kit

from .._shared_documents import CHAT_DOCUMENTS, attached_text, chat_media_part
from .._shared_ids import normalize_completions_tool_call_id
from .._shared_request import (
    chat_tool_choice,
    declared_tools,
    grammar_inputs,
    max_output_tokens,
    reasoning_effort,
    tool_result_text,
)
from ._assistant import REASONING_FIELDS, assistant_message
from ._cache_markers import add_cache_markers, add_prompt_cache_fields
from ._compat import CompletionsCompat, resolve_compat
from ._reasoning_switch import add_reasoning
from ._server_tools import OPENROUTER_TOOLS
from ._system import read_parts, system_entries
from ._tools import convert_tools, response_format

__all__ = [
    "API",
    "PATH",
    "REASONING_FIELDS",
    "build_payload",
    "convert_messages",
    "convert_tools",
    "request_grammar",
]

API = "openai-completions"
PATH = "/chat/completions"
"""Request path, relative to ``model.base_url``."""

PROVIDER_OPTIONS = ("tool_choice", "reasoning_effort")
AFTER_TOOL_RESULTS_TEXT = "I have processed the tool results."
NO_TOOL_OUTPUT_TEXT = "(no tool output)"
"""A tool result with neither text nor images (pi-ai 1.6)."""
ATTACHED_IMAGES_TEXT = "Attached image(s) from tool result:"
ATTACHED_DOCUMENTS_TEXT = "Attached document(s) from tool result:"


def _user_message(message: pi_sdk.UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text:  # pi-ai 1.6 leaves empty text parts out
                parts.append({"type": "text", "text": block.text})
        else:
            parts.append(chat_media_part(block))
    return {"role": "user", "content": parts} if parts else None


def convert_messages(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    compat: CompletionsCompat | None = None,
    *,
    options: pi_sdk.StreamOptions | None = None,
    origin: str | None = None,
    parts: kit.ContextParts | None = None,
) -> list[dict[str, Any]]:
    """Convert the system prompt and history to Chat Completions ``messages`` (pi-spec §4.2).

    The history first goes through :func:`pi_sdk.provider.transform_messages`.

    Args:
        model: The target model.
        context: System prompt and messages.
        compat: Flags; default :func:`~pi_sdk_openai.completions.resolve_compat` of ``model``.
        options: Read for ``foreign_reasoning``.
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`), if not
            ``model.base_url``.
        parts: The context as :func:`._system.read_parts` reads it, when the caller has it.

    Returns:
        The ``messages`` array, ready to send.
    """
    compat = compat or resolve_compat(model)
    parts = parts or read_parts(model, context, compat)
    grammar = grammar_inputs(model, declared_tools(parts), compat.supports_openai_grammar_tools)
    policy = options.foreign_reasoning if options is not None else "drop"
    history: list[pi_sdk.Message] = kit.transform_messages(
        parts.messages,
        model,
        normalize_tool_call_id=normalize_completions_tool_call_id,
        foreign_reasoning=policy,
        origin=origin,
        reasoning_content=compat.replays_reasoning_content,
        documents=CHAT_DOCUMENTS,
    )
    out: list[dict[str, Any]] = []
    role = "developer" if model.reasoning and compat.supports_developer_role else "system"
    if parts.system_prompt:
        out.append({"role": role, "content": kit.sanitize_surrogates(parts.system_prompt)})
    after_tool = compat.requires_assistant_after_tool_result
    last_role = ""
    i = 0
    while i < len(history):
        message = history[i]
        if isinstance(message, pi_sdk.SystemMessage):  # in place: see ._system
            out.extend(system_entries(message, parts, role, compat, model))
            i += 1
        elif isinstance(message, pi_sdk.UserMessage):
            if after_tool and last_role == "toolResult":
                out.append({"role": "assistant", "content": AFTER_TOOL_RESULTS_TEXT})
            entry = _user_message(message)
            if entry is not None:
                out.append(entry)
                last_role = "user"
            i += 1
        elif isinstance(message, pi_sdk.AssistantMessage):
            entry = assistant_message(
                message, compat, reasoning_model=model.reasoning, grammar=grammar
            )
            if entry is not None:
                out.append(entry)
                last_role = "assistant"
            i += 1
        else:
            media: list[pi_sdk.ImageContent | pi_sdk.DocumentContent] = []
            while i < len(history) and isinstance(result := history[i], pi_sdk.ToolResultMessage):
                found = [b for b in result.content if not isinstance(b, pi_sdk.TextContent)]
                media.extend(found)
                text = tool_result_text(result)
                if not text:
                    text = attached_text(found) if found else NO_TOOL_OUTPUT_TEXT
                entry = {"role": "tool", "content": text, "tool_call_id": result.tool_call_id}
                if compat.requires_tool_result_name:
                    entry["name"] = result.tool_name
                out.append(entry)
                i += 1
            last_role = "toolResult"
            if media:
                if after_tool:
                    out.append({"role": "assistant", "content": AFTER_TOOL_RESULTS_TEXT})
                images = any(isinstance(b, pi_sdk.ImageContent) for b in media)
                heading = ATTACHED_IMAGES_TEXT if images else ATTACHED_DOCUMENTS_TEXT
                attached: list[dict[str, Any]] = [{"type": "text", "text": heading}]
                attached.extend(chat_media_part(block) for block in media)
                out.append({"role": "user", "content": attached})
                last_role = "user"
    return out


def request_grammar(
    model: pi_sdk.Model, context: pi_sdk.Context, compat: CompletionsCompat | None = None
) -> dict[str, str]:
    """The grammar tools a request to ``model`` sends as custom tools, for the decoder.

    Name -> the argument that carries a call's text; empty without grammar support.
    """
    compat = compat or resolve_compat(model)
    if not compat.supports_openai_grammar_tools:
        return {}
    return grammar_inputs(model, declared_tools(read_parts(model, context, compat)), True)


def build_payload(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions | None = None,
    *,
    compat: CompletionsCompat | None = None,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Chat Completions request body (before payload hooks), pi-spec §4.2.

    Args:
        model: The target model (``compat`` flags resolved from it unless given).
        context: System prompt, messages and tools.
        options: Per-call options; ``provider_options`` may hold ``tool_choice`` and
            ``reasoning_effort``.
        compat: Pre-resolved flags.
        origin: Where the request goes, when it is not ``model.base_url``.

    Returns:
        The JSON body. ``max_completion_tokens`` (or ``max_tokens``) is always set:
        :meth:`pi_sdk.StreamOptions.resolved_max_tokens` (``options.max_tokens`` or
        ``model.max_tokens``, fitted into the context window). With
        ``requires_tools_with_tool_history``, a request without tools whose history has tool
        calls or results sends ``tools: []`` (older LiteLLM in front of Anthropic requires it).

    Raises:
        ConfigurationError: unknown ``provider_options`` or ``model.compat`` keys.
    """
    options = options or pi_sdk.StreamOptions()
    kit.check_provider_options(options, PROVIDER_OPTIONS, API)
    compat = compat or resolve_compat(model)
    parts = read_parts(model, context, compat, options)
    messages = convert_messages(model, context, compat, options=options, origin=origin, parts=parts)
    payload: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
    retention = options.resolved_cache_retention()
    long_retention = add_prompt_cache_fields(payload, model, compat, options)
    if compat.supports_usage_in_streaming:
        payload["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        payload["store"] = False
    payload[compat.max_tokens_field] = max_output_tokens(model, options, context)
    if options.temperature is not None:
        payload["temperature"] = options.temperature
    output = options.resolved_output()
    tool_choice = options.provider_options.get("tool_choice", chat_tool_choice(options))
    if output is not None and output.mode == "tool":
        tool_choice = {"type": "function", "function": {"name": kit.OUTPUT_TOOL_NAME}}
    elif output is not None:
        payload["response_format"] = response_format(output)
    if parts.tools:
        payload["tools"] = convert_tools(parts.tools, compat, model)
        if compat.zai_tool_stream:
            payload["tool_stream"] = True
    elif compat.requires_tools_with_tool_history and any(
        m["role"] == "tool" or "tool_calls" in m for m in messages
    ):
        payload["tools"] = []
    if compat.cache_control_format == "anthropic" and retention != "none":
        marker: dict[str, Any] = {"type": "ephemeral"}
        if long_retention:
            marker["ttl"] = "1h"
        add_cache_markers(messages, payload.get("tools"), marker)
    if options.server_tools:  # OpenRouter's web search (docs/server-tools.md)
        openrouter = "openrouter.ai" in model.base_url
        server = options.resolved_server_tools(model, OPENROUTER_TOOLS if openrouter else {})
        payload["tools"] = [*payload.get("tools", ()), *server]
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if compat.vllm_priority is not None:
        payload["priority"] = compat.vllm_priority
    add_reasoning(payload, model, compat, reasoning_effort(model, options), options)
    if "openrouter.ai" in model.base_url and compat.open_router_routing:
        payload["provider"] = dict(compat.open_router_routing)
    routing = compat.vercel_gateway_routing
    if "ai-gateway.vercel.sh" in model.base_url and (routing.get("only") or routing.get("order")):
        gateway = {key: routing[key] for key in ("only", "order") if routing.get(key)}
        payload["providerOptions"] = {"gateway": gateway}
    return payload
