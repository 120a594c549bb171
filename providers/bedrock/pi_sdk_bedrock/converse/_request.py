"""Bedrock Converse requests: the JSON body of ``POST /model/{modelId}/converse[-stream]``.

pi-mono ``providers/amazon-bedrock.ts`` (``convertMessages``, ``buildSystemPrompt``,
``convertToolConfig``, ``buildAdditionalModelRequestFields``, ``streamSimpleBedrock``), with
the differences listed in ``docs/providers/bedrock.md``. Shapes: the Bedrock Runtime API
reference, ``Converse`` request syntax (``messages``, ``system``, ``inferenceConfig``,
``toolConfig``, ``additionalModelRequestFields``, ``requestMetadata``). Pure functions: no I/O,
no AWS SDK. The modelId goes in the URL path, not the body (:mod:`pi_sdk_bedrock._client`).
"""

from __future__ import annotations

import json
from typing import Any

import pi_sdk
from pi_sdk import provider as kit
from pi_sdk.options import Output

from ._capabilities import (
    binds_thinking,
    compat_flag,
    effort_of,
    is_adaptive,
    is_claude,
    openai_reasoning,
    supports_prompt_caching,
)
from ._citations import citations_block
from ._documents import DOCUMENTS, document_block
from ._server_tools import server_tool_definitions
from ._tools import config_of, neutral_tool_choice

__all__ = [
    "API",
    "PROVIDER_OPTION_KEYS",
    "build_request",
    "convert_messages",
    "normalize_tool_call_id",
]

API = "bedrock-converse-stream"
"""The wire API id."""

PROVIDER_OPTION_KEYS = frozenset(
    {
        "region",
        "profile",
        "stream",
        "tool_choice",
        "thinking_display",
        "interleaved_thinking",
        "request_metadata",
    }
)
"""The ``StreamOptions.provider_options`` keys this API reads (others are an error)."""

THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
"""The beta ``thinking.block_binding`` needs (pi-ai 1.6)."""

TOOL_CALL_ID_MAX_LEN = 64
"""Longest ``toolUseId`` pi-mono sends (``^[a-zA-Z0-9_-]+$``)."""

_IMAGE_FORMATS = {
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}
_DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


def normalize_tool_call_id(
    tool_call_id: str, model: pi_sdk.Model, source: pi_sdk.AssistantMessage
) -> str:
    """Make another model's tool-call id valid for Bedrock: ``[a-zA-Z0-9_-]``, <= 64 chars.

    pi-mono replaces every other character with ``_`` and cuts at 64; here an id that had to
    change also gets a hash of the original (:func:`pi_sdk.provider.sanitize_tool_call_id`), so two
    distinct ids never collide. The :data:`pi_sdk.provider.ToolCallIdNormalizer` for
    :func:`pi_sdk.provider.transform_messages`.
    """
    del model, source
    return kit.sanitize_tool_call_id(tool_call_id, max_len=TOOL_CALL_ID_MAX_LEN)


def _cache_point(retention: str) -> dict[str, Any]:
    point: dict[str, Any] = {"type": "default"}
    if retention == "long":
        point["ttl"] = "1h"
    return {"cachePoint": point}


def _image(image: pi_sdk.ImageContent) -> dict[str, Any]:
    image_format = _IMAGE_FORMATS.get(image.mime_type.lower())
    if image_format is None:
        raise pi_sdk.ConfigurationError(
            f"Bedrock does not take images of type {image.mime_type!r}; "
            f"supported: {sorted(set(_IMAGE_FORMATS))}"
        )
    # JSON blobs are base64 strings: the stored data goes as it is.
    return {"image": {"format": image_format, "source": {"bytes": image.data}}}


def _content(
    blocks: list[pi_sdk.TextContent | pi_sdk.ImageContent | pi_sdk.DocumentContent],
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    documents = 0
    for block in blocks:
        if isinstance(block, pi_sdk.TextContent):
            out.append({"text": kit.sanitize_surrogates(block.text)})
        elif isinstance(block, pi_sdk.ImageContent):
            out.append(_image(block))
        else:
            documents += 1
            out.append(document_block(block, documents))
    return out


def _thinking(block: pi_sdk.ThinkingContent, claude: bool) -> dict[str, Any] | None:
    if block.redacted:
        if claude and block.thinking_signature:
            return {"reasoningContent": {"redactedContent": block.thinking_signature}}
        return None
    if not block.thinking.strip():
        return None
    text = kit.sanitize_surrogates(block.thinking)
    if not claude:
        # Only Claude takes a signature; other models reject the field (pi-mono).
        return {"reasoningContent": {"reasoningText": {"text": text}}}
    if not (block.thinking_signature or "").strip():
        return {"text": text}  # unsigned thinking is replayed as text, as for Anthropic
    signed = {"text": text, "signature": block.thinking_signature}
    return {"reasoningContent": {"reasoningText": signed}}


def _assistant(message: pi_sdk.AssistantMessage, claude: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.TextContent):
            if block.text.strip():  # with the same source's citations: as it came
                cited = citations_block(block)
                blocks.append(cited or {"text": kit.sanitize_surrogates(block.text)})
        elif isinstance(block, pi_sdk.ThinkingContent):
            converted = _thinking(block, claude)
            if converted is not None:
                blocks.append(converted)
        elif isinstance(block, pi_sdk.ToolCall):
            tool = {"toolUseId": block.id, "name": block.name, "input": block.arguments}
            blocks.append({"toolUse": tool})
        elif isinstance(block, pi_sdk.ServerToolCall | pi_sdk.ServerToolResult) and block.raw:
            blocks.append(block.raw)  # a server tool's block, replayed as it came
    return blocks


def _tool_result(message: pi_sdk.ToolResultMessage) -> dict[str, Any]:
    status = "error" if message.is_error else "success"
    content = _content(list(message.content))
    return {"toolResult": {"toolUseId": message.tool_call_id, "content": content, "status": status}}


def convert_messages(
    context: pi_sdk.Context,
    model: pi_sdk.Model,
    *,
    cache_retention: str = "short",
    parts: kit.ContextParts | None = None,
    **transform: Any,
) -> list[dict[str, Any]]:
    """Convert pi messages to Converse ``messages`` (pi-mono ``convertMessages``).

    :func:`pi_sdk.provider.transform_messages` runs first (Bedrock tool-call ids, other models'
    thinking per ``foreign_reasoning``, images for text-only models, orphaned tool calls;
    ``transform`` passes ``foreign_reasoning=`` and ``origin=``). Then: blank text and thinking
    are dropped; thinking is a ``reasoningContent.reasoningText`` (with its signature for
    Claude; unsigned Claude thinking goes as text); redacted Claude reasoning goes back as
    ``redactedContent``; consecutive messages of one role merge into one message (Converse
    rejects a conversation whose roles do not alternate: tool results and a user message that
    follows them, such as a steering message, or two user turns around a skipped failed turn,
    are one user message; pi-mono merges only the tool results); with caching on
    (:func:`supports_prompt_caching`) the last user message ends with a ``cachePoint``.

    ``parts``: ``context`` read already (``kit.ContextParts.read(context, model,
    in_place=False)``, what :func:`build_request` reads once for the whole body).

    Raises:
        ConfigurationError: an image type Bedrock does not take (jpeg, png, gif, webp only).
    """
    if parts is None:
        parts = kit.ContextParts.read(context, model, in_place=False)
    history = kit.transform_messages(
        parts.messages,
        model,
        normalize_tool_call_id=normalize_tool_call_id,
        documents=DOCUMENTS,
        **transform,
    )
    claude = is_claude(model)
    out: list[dict[str, Any]] = []
    for message in history:
        if isinstance(message, pi_sdk.UserMessage):
            raw = message.content
            if isinstance(raw, str):
                content = [{"text": kit.sanitize_surrogates(raw)}]
            else:
                content = _content(list(raw))
            role = "user"
        elif isinstance(message, pi_sdk.AssistantMessage):
            content = _assistant(message, claude)
            role = "assistant"
        elif isinstance(message, pi_sdk.ToolResultMessage):
            content = [_tool_result(message)]
            role = "user"
        else:  # a system message: none here, the transcript was collapsed
            continue
        if not content:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"] += content  # roles must alternate: same-role turns are one message
        else:
            out.append({"role": role, "content": content})
    if cache_retention != "none" and supports_prompt_caching(model) and out:
        if out[-1]["role"] == "user":
            out[-1]["content"].append(_cache_point(cache_retention))
    return out


def _forced_output(model: pi_sdk.Model, output: Output) -> bool:
    """Whether a typed answer goes as a forced tool.

    Yes for ``mode="tool"``, or ``"auto"`` on a model whose
    ``compat["supportsStructuredOutputs"]`` is false; else ``outputConfig``.
    """
    if output.mode != "auto":
        return output.mode == "tool"
    return compat_flag(model, "supportsStructuredOutputs") is False


def _text_format(output: Output) -> dict[str, Any]:
    """Converse ``outputConfig.textFormat`` for a typed answer.

    Bedrock API reference, ``OutputFormat`` / ``JsonSchemaDefinition``: the schema goes as
    a JSON *string*.
    """
    definition: dict[str, Any] = {"schema": json.dumps(output.wire_schema), "name": output.name}
    if output.description:
        definition["description"] = output.description
    return {"type": "json_schema", "structure": {"jsonSchema": definition}}


def _thinking_fields(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, extra: dict[str, Any], budget: int | None
) -> dict[str, Any] | None:
    """``additionalModelRequestFields`` for reasoning (pi-ai 1.6), else ``None``.

    Claude: adaptive thinking with an effort (:func:`effort_of`: ``max`` only where the
    model's level map names it, else ``high``) or a token budget (``xhigh`` / ``max`` take the
    ``high`` budget); on models that bind signed thinking to the prompt and tools
    (:func:`binds_thinking`, not GovCloud) ``thinking.block_binding`` drops stale blocks instead
    of a 400 after either changes. OpenAI models: :func:`openai_reasoning`; others: nothing.
    """
    level = options.reasoning
    if level is None or not model.reasoning:
        return None
    if not is_claude(model):
        return openai_reasoning(model, level)
    gov = model.id.lower().startswith(("us-gov.", "arn:aws-us-gov:"))
    display = None if gov else extra.get("thinking_display", "summarized")
    thinking: dict[str, Any]
    if is_adaptive(model):
        thinking = {"type": "adaptive"}
        fields: dict[str, Any] = {"thinking": thinking}
        fields["output_config"] = {"effort": effort_of(model, level)}
    else:
        thinking = {"type": "enabled", "budget_tokens": budget}
        fields = {"thinking": thinking}
        if extra.get("interleaved_thinking", True):
            fields["anthropic_beta"] = ["interleaved-thinking-2025-05-14"]
    if display is not None:
        thinking["display"] = display
    if not gov and binds_thinking(model):  # pi-ai 1.6: stale signed thinking is dropped
        thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
        fields["anthropic_beta"] = [THINKING_BINDING_BETA]
    return fields


def build_request(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions,
    *,
    origin: str | None = None,
    prefer_strict: bool = True,
) -> dict[str, Any]:
    """Build the Converse / ConverseStream JSON body (pi-mono ``streamBedrock`` command input).

    Args:
        model: Target model (``id``, ``name``, ``reasoning``, ``max_tokens``).
        context: System prompt (a text block, then a ``cachePoint`` for caching models),
            messages and tools (``toolSpec`` with ``inputSchema.json``).
        options: ``max_tokens`` and ``temperature`` (``inferenceConfig``), ``reasoning`` and
            ``thinking_budgets`` (Claude: ``thinking`` enabled with a budget, raising
            ``maxTokens`` by it within ``model.max_tokens``, or adaptive with an effort on
            Opus/Sonnet 4.6+), ``cache_retention``, ``foreign_reasoning``, and
            ``provider_options``: ``tool_choice`` (``"auto"``/``"any"``/``"none"`` or
            ``{"type": "tool", "name"}``), ``thinking_display`` (default ``"summarized"``,
            ``None`` to omit), ``interleaved_thinking`` (default on), ``request_metadata``
            (``{str: str}``); ``region``, ``profile`` and ``stream`` are the client's.
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`).
        prefer_strict: ``False``: ``strict: "prefer"`` tools go non-strict (sent again).

    Returns:
        The JSON body (the modelId is in the URL path).

    Raises:
        ConfigurationError: an unknown ``provider_options`` key, an unsupported image type, a
            ``strict: "require"`` tool the model cannot take strict.
    """
    extra = kit.check_provider_options(options, PROVIDER_OPTION_KEYS, API)
    retention = options.resolved_cache_retention()
    max_tokens = options.resolved_max_tokens(model, context)
    budget: int | None = None
    if options.reasoning is not None and model.reasoning and is_claude(model):
        level = "high" if options.reasoning in ("xhigh", "max") else options.reasoning
        budget = {**_DEFAULT_BUDGETS, **(options.thinking_budgets or {})}[level]
        if not is_adaptive(model):  # pi-ai 1.6 adjustMaxTokensForThinking, fitted again
            max_tokens, budget = options.resolved_thinking_budget(model, context)
    # Bedrock has no mid-conversation system messages: every one is replayed into the prompt.
    parts = kit.ContextParts.read(context, model, in_place=False)
    payload: dict[str, Any] = {
        "messages": convert_messages(
            context,
            model,
            cache_retention=retention,
            parts=parts,
            foreign_reasoning=options.foreign_reasoning,
            origin=origin,
        )
    }
    if parts.system_prompt:
        system: list[dict[str, Any]] = [{"text": kit.sanitize_surrogates(parts.system_prompt)}]
        if retention != "none" and supports_prompt_caching(model):
            system.append(_cache_point(retention))
        payload["system"] = system
    inference: dict[str, Any] = {}
    inference["maxTokens"] = max_tokens
    if options.temperature is not None:
        inference["temperature"] = options.temperature
    payload["inferenceConfig"] = inference
    tool_choice = extra.get("tool_choice", neutral_tool_choice(options))
    output = options.resolved_output()
    tools = parts.tools
    if output is not None and _forced_output(model, output):
        tools = [*tools, kit.output_tool(output)]
        tool_choice = {"type": "tool", "name": kit.OUTPUT_TOOL_NAME}
    elif output is not None:
        payload["outputConfig"] = {"textFormat": _text_format(output)}
    tool_config = config_of(tools, tool_choice, model, prefer_strict)
    if tool_config is not None:
        payload["toolConfig"] = tool_config
    if options.server_tools:  # Nova's system tools (docs/server-tools.md)
        server = options.resolved_server_tools(model, server_tool_definitions(model))
        payload.setdefault("toolConfig", {"tools": []})["tools"] += server
    fields = _thinking_fields(model, options, extra, budget)
    if fields is not None:
        payload["additionalModelRequestFields"] = fields
    metadata = extra.get("request_metadata")
    if metadata:
        payload["requestMetadata"] = {str(k): str(v) for k, v in dict(metadata).items()}
    return payload
