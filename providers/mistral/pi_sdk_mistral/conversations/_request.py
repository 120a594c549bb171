"""Mistral chat requests: the ``POST /v1/chat/completions`` body, from pi types.

pi-mono ``providers/mistral.ts`` (``buildChatPayload``, ``toChatMessages``,
``streamSimpleMistral``, the tool-call id normalizer) with the differences listed in
``docs/providers/mistral.md``. Wire shapes: Mistral's chat completion API reference (the
``mistralai`` SDK's ``ChatCompletionStreamRequest``). Pure functions: no I/O, no vendor SDK.
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

import pi_sdk
from pi_sdk import provider as kit
from pi_sdk.options import Output

from ._documents import DOCUMENTS, document_chunk

__all__ = [
    "API",
    "PROVIDER_OPTION_KEYS",
    "TOOL_CALL_ID_LENGTH",
    "build_request",
    "convert_messages",
    "normalize_tool_call_id",
    "reasoning_fields",
]

API = "mistral-conversations"
"""The wire API id."""

PROVIDER_OPTION_KEYS = frozenset(
    {"tool_choice", "prompt_mode", "reasoning_effort", "safe_prompt", "random_seed",
     "prompt_cache_key"}
)  # fmt: skip
"""``StreamOptions.provider_options`` keys this API reads (each sent as the same-named field)."""

TOOL_CALL_ID_LENGTH = 9
"""Mistral tool-call ids are exactly 9 characters of ``[a-zA-Z0-9]``."""

_VALID_ID = re.compile(r"[a-zA-Z0-9]{9}")
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
_REASONING_EFFORT_MODELS = frozenset(
    {"mistral-small-2603", "mistral-small-latest", "mistral-medium-3.5"}
)
"""Models that take ``reasoning_effort``; other reasoning models take ``prompt_mode`` (pi-mono)."""

_SEE_IMAGE = "(see attached image)"
_SEE_DOCUMENT = "(see attached document)"
_NO_OUTPUT = "(no tool output)"
_TOOL_ERROR = "[tool error] "


def normalize_tool_call_id(
    tool_call_id: str, model: pi_sdk.Model, source: pi_sdk.AssistantMessage
) -> str:
    """Make another provider's tool-call id valid for Mistral: 9 characters of ``[a-zA-Z0-9]``.

    A valid id is kept; an id that is 9 such characters once the others are removed becomes
    that; any other becomes the first 9 base-36 characters of a hash of the original id
    (pi-mono ``deriveMistralToolCallId``; :func:`pi_sdk.provider.short_hash`, not pi-mono's
    hash). Two ids that map to the same value in one history are told apart by
    :func:`pi_sdk.provider.transform_messages`, which re-derives a repeated id.
    """
    del model, source
    if _VALID_ID.fullmatch(tool_call_id):
        return tool_call_id
    stripped = _NOT_ALNUM.sub("", tool_call_id)
    if len(stripped) == TOOL_CALL_ID_LENGTH:
        return stripped
    return kit.short_hash(tool_call_id, TOOL_CALL_ID_LENGTH)


def _image_chunk(image: pi_sdk.ImageContent | pi_sdk.DocumentContent) -> dict[str, Any]:
    if isinstance(image, pi_sdk.DocumentContent):
        return document_chunk(image)
    return {"type": "image_url", "image_url": f"data:{image.mime_type};base64,{image.data}"}


def _user(message: pi_sdk.UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": kit.sanitize_surrogates(message.content)}
    chunks = [
        {"type": "text", "text": kit.sanitize_surrogates(block.text)}
        if isinstance(block, pi_sdk.TextContent)
        else _image_chunk(block)
        for block in message.content
    ]
    return {"role": "user", "content": chunks} if chunks else None


def _assistant(message: pi_sdk.AssistantMessage) -> dict[str, Any] | None:
    chunks: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text.strip():
                chunks.append({"type": "text", "text": kit.sanitize_surrogates(block.text)})
        elif isinstance(block, pi_sdk.ThinkingContent):
            if block.thinking.strip():
                chunk: dict[str, Any] = {
                    "type": "thinking",
                    "thinking": [{"type": "text", "text": kit.sanitize_surrogates(block.thinking)}],
                }
                if block.thinking_signature:
                    chunk["signature"] = block.thinking_signature
                chunks.append(chunk)
        elif isinstance(block, pi_sdk.ToolCall):
            arguments = json.dumps(block.arguments or {}, ensure_ascii=False, separators=(",", ":"))
            calls.append(
                {
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": arguments},
                    "index": 0,  # as pi-ai 1.6 sends every call
                }
            )
    if not chunks and not calls:
        return None
    out: dict[str, Any] = {"role": "assistant"}
    if chunks:
        out["content"] = chunks
    if calls:
        out["tool_calls"] = calls
    return out


def _tool_result(message: pi_sdk.ToolResultMessage, images: bool) -> dict[str, Any]:
    text = "\n".join(
        kit.sanitize_surrogates(b.text)
        for b in message.content
        if isinstance(b, pi_sdk.TextContent)
    ).strip()
    pictures = [b for b in message.content if isinstance(b, pi_sdk.ImageContent)] if images else []
    documents = [b for b in message.content if isinstance(b, pi_sdk.DocumentContent)]
    prefix = _TOOL_ERROR if message.is_error else ""
    if text:
        text = prefix + text
    elif pictures:
        text = prefix + _SEE_IMAGE
    elif documents:
        text = prefix + _SEE_DOCUMENT
    else:
        text = prefix + _NO_OUTPUT
    attached = [*pictures, *documents]
    content = [{"type": "text", "text": text}, *(_image_chunk(p) for p in attached)]
    return {
        "role": "tool",
        "tool_call_id": message.tool_call_id,
        "name": message.tool_name,
        "content": content,
    }


def convert_messages(
    context: pi_sdk.Context,
    model: pi_sdk.Model,
    *,
    foreign_reasoning: pi_sdk.ForeignReasoning = "drop",
    origin: str | None = None,
) -> list[dict[str, Any]]:
    """Convert pi messages to Mistral ``messages`` (pi-mono ``toChatMessages``).

    :func:`pi_sdk.provider.transform_messages` runs first (Mistral tool-call ids, foreign
    thinking per ``foreign_reasoning``, images for text-only models, orphaned tool calls).
    Then: user text/images as a string or ``text``/``image_url`` chunks; assistant text and
    thinking as ``text`` and ``thinking`` chunks (blank ones dropped; a signature kept), tool
    calls as ``tool_calls`` with JSON-string arguments; each tool result as a ``tool`` message
    (``[tool error]`` prefix for errors, a placeholder for an empty result). A history that
    ends with an assistant turn without tool calls sends it with ``"prefix": true``: Mistral
    then continues that text (and rejects a final assistant message without it); every other
    assistant message carries ``"prefix": false``, as Mistral's SDK writes it.

    The context is read by :meth:`pi_sdk.provider.ContextParts.read`: later system messages
    go in place as ``system`` messages where the model takes them (pi-ai 1.6).

    Returns:
        A list of ``{"role": ..., ...}`` dicts, without the leading system prompt.
    """
    history = kit.transform_messages(
        kit.ContextParts.read(context, model).messages,
        model,
        normalize_tool_call_id=normalize_tool_call_id,
        foreign_reasoning=foreign_reasoning,
        origin=origin,
        documents=DOCUMENTS,
    )
    images = "image" in model.input
    out: list[dict[str, Any]] = []
    for message in history:
        if isinstance(message, pi_sdk.SystemMessage):  # in place (supportsMidConvoSystemMessages)
            text = kit.sanitize_surrogates(message.update_text)
            converted = {"role": "system", "content": text} if text else None
        elif isinstance(message, pi_sdk.UserMessage):
            converted = _user(message)
        elif isinstance(message, pi_sdk.AssistantMessage):
            converted = _assistant(message)
            if converted is not None:
                converted["prefix"] = False  # what Mistral's SDK sends (pi-ai 1.6's bodies)
        else:
            converted = _tool_result(message, images)
        if converted is not None:
            out.append(converted)
    if out and out[-1]["role"] == "assistant" and "tool_calls" not in out[-1]:
        out[-1]["prefix"] = True
    return out


def reasoning_fields(model: pi_sdk.Model, options: pi_sdk.StreamOptions) -> dict[str, str]:
    """``reasoning_effort`` or ``prompt_mode`` for ``options.reasoning`` (pi-ai 1.6).

    Only for reasoning models. The level is first clamped to what the model supports
    (:meth:`pi_sdk.Model.clamp_thinking_level`). A model with a level map
    (``model.thinking_level_map``, or ``model.compat["thinkingLevelMap"]``) gets
    ``reasoning_effort``: the level's entry, else ``"high"``; with reasoning off, the map's ``off``
    value when it is a string. Hand-made models without a map that pi-ai 0.73 knew to take
    ``reasoning_effort`` (``mistral-small-2603``/``-latest``, ``mistral-medium-3.5``) get
    ``"high"``; every other reasoning model (magistral) gets ``prompt_mode: "reasoning"``.
    """
    if not model.reasoning:
        return {}
    level = options.reasoning
    if level is not None:
        level = model.clamp_thinking_level(level)
        level = None if level == "off" else level
    levels: Any = model.thinking_level_map or (model.compat or {}).get("thinkingLevelMap")
    if isinstance(levels, dict):
        table = cast("dict[str, Any]", levels)
        mapped: Any = table.get(level) if level is not None else table.get("off")
        if level is None:
            return {"reasoning_effort": mapped} if isinstance(mapped, str) else {}
        return {"reasoning_effort": mapped if isinstance(mapped, str) else "high"}
    if level is None:
        return {}
    if model.id in _REASONING_EFFORT_MODELS:
        return {"reasoning_effort": "high"}
    return {"prompt_mode": "reasoning"}


def build_request(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions,
    *,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the ``POST /v1/chat/completions`` body (pi-mono ``buildChatPayload``).

    Args:
        model: Target model (``id``, ``max_tokens``, ``reasoning``, ``input``).
        context: System prompt (a first ``system`` message), messages and tools (``function``
            tools with ``strict``, :func:`_function_tool`).
        options: ``max_tokens`` (default ``model.max_tokens``, fitted into the context window:
            :meth:`pi_sdk.StreamOptions.resolved_max_tokens`), ``temperature``,
            ``reasoning`` (:func:`reasoning_fields`), and ``provider_options``:
            ``tool_choice`` (``"auto"``/``"none"``/``"any"``/``"required"`` or
            ``{"type": "function", "function": {"name": ...}}``), ``prompt_mode``,
            ``reasoning_effort`` (win over what ``reasoning`` implies), ``safe_prompt``,
            ``random_seed``, ``prompt_cache_key``: sent as given.
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`), when that
            is not ``model.base_url``.

    Returns:
        The JSON body, with ``"stream": true``.

    Raises:
        ConfigurationError: an unknown ``provider_options`` key, a ``strict: "require"`` tool
            the model cannot take strict.
    """
    extra = kit.check_provider_options(options, PROVIDER_OPTION_KEYS, API)
    messages = convert_messages(
        context, model, foreign_reasoning=options.foreign_reasoning, origin=origin
    )
    parts = kit.ContextParts.read(context, model)
    if parts.system_prompt:
        messages.insert(
            0, {"role": "system", "content": kit.sanitize_surrogates(parts.system_prompt)}
        )
    payload: dict[str, Any] = {"model": model.id, "stream": True, "messages": messages}
    if parts.tools:
        payload["tools"] = [_function_tool(tool, model) for tool in parts.tools]
    if options.temperature is not None:
        payload["temperature"] = options.temperature
    payload["max_tokens"] = options.resolved_max_tokens(model, context)
    payload.update(reasoning_fields(model, options))
    if options.session_id and options.resolved_cache_retention() != "none":
        payload["prompt_cache_key"] = options.session_id  # pi-ai 1.6; provider_options win
    resolved = options.resolved_tool_choice()
    if resolved is not None:  # Chat Completions' shape; provider_options' wins below
        kind, name = resolved
        payload["tool_choice"] = (
            {"type": "function", "function": {"name": name}} if kind == "tool" else kind
        )
    output = options.resolved_output()
    if output is not None:
        _ask_for_output(payload, output)
    payload.update(extra)
    return payload


def _function_tool(tool: pi_sdk.Tool, model: pi_sdk.Model) -> dict[str, Any]:
    """A ``function`` tool with ``strict`` (``true``: the schema made strict).

    ``true`` for a tool whose constrained sampling resolves to strict on a model whose compat
    opts in with ``supportsStrictMode`` (pi-ai 1.6: off by default, Mistral Large can stall
    before a strict call), else ``false``.
    """
    strict = tool.strict_mode(model, (model.compat or {}).get("supportsStrictMode") is True)
    function: dict[str, Any] = {"name": tool.name, "description": tool.description}
    function["parameters"] = tool.wire_parameters(strict)
    function["strict"] = bool(strict)
    return {"type": "function", "function": function}


def _ask_for_output(payload: dict[str, Any], output: Output) -> None:
    """Ask for a typed answer.

    Mistral custom structured outputs: ``response_format`` ``json_schema`` (Mistral docs,
    "Custom structured outputs"); ``mode="tool"``: a forced ``final_answer`` function.
    """
    if output.mode == "tool":
        tool = kit.output_tool(output)
        function: dict[str, Any] = {"name": tool.name, "description": tool.description}
        function["parameters"] = tool.parameters
        payload.setdefault("tools", []).append({"type": "function", "function": function})
        payload["tool_choice"] = {"type": "function", "function": {"name": tool.name}}
        return
    spec: dict[str, Any] = {"name": output.name, "schema": output.wire_schema}
    spec["strict"] = output.strict_schema is not None
    if output.description:
        spec["description"] = output.description
    payload["response_format"] = {"type": "json_schema", "json_schema": spec}
