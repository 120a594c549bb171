"""``openai-responses`` request: Context + StreamOptions → the Responses body (pi-spec §4.3, §4.4).

Body (:func:`build_payload`): ``input`` items from any history (:func:`convert_input`),
``stream: true``, ``store: false``, ``max_output_tokens``, ``prompt_cache_key`` =
``options.session_id`` (unless cache retention is ``"none"``; ``prompt_cache_retention: "24h"``
for ``"long"`` on api.openai.com), tools, and for reasoning models
``include: ["reasoning.encrypted_content"]`` (so each reasoning item can be replayed next turn)
plus ``reasoning: {effort, summary}`` when reasoning is requested, ``reasoning: {effort: "none"}``
when it is off on a model that can turn it off (:func:`off_effort`, pi-ai 0.73).

``provider_options`` keys: ``reasoning_effort`` (sent as is, overriding ``options.reasoning``),
``reasoning_summary`` (``"auto"``, ``"concise"``, ``"detailed"``; default ``"auto"`` when reasoning
is on), ``service_tier`` (``"auto"``, ``"default"``, ``"flex"``, ``"priority"``; flex costs half,
priority double) and ``tool_choice``.

Not ported from pi-mono: the ``# Juice: 0 !important`` developer message appended for models
whose *name* starts with ``gpt-5`` when reasoning is off. It is keyed on a case-sensitive name
that no catalog model has (they are named ``GPT-5...``), so it never fires in pi-mono either.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pi_sdk import provider as kit

from .._shared_ids import normalize_responses_tool_call_id
from .._shared_json import as_dict
from .._shared_request import (
    data_url,
    max_output_tokens,
    reasoning_effort,
    responses_tool_choice,
    tool_result_text,
)

__all__ = [
    "API",
    "PATH",
    "build_payload",
    "convert_input",
    "convert_tools",
    "parse_text_signature",
    "string_option",
    "text_signature",
]

API = "openai-responses"
PATH = "/responses"
"""Request path, relative to ``model.base_url``."""

PROVIDER_OPTIONS = ("reasoning_effort", "reasoning_summary", "service_tier", "tool_choice")


def string_option(options: kit.StreamOptions, key: str) -> str | None:
    value: Any = options.provider_options.get(key)
    if value is not None and not isinstance(value, str):
        raise kit.ConfigurationError(
            f"{API}: provider_options[{key!r}] must be a string, got {value!r}"
        )
    return value


def text_signature(item_id: str, phase: str | None = None) -> str:
    """Return the TextSignatureV1 JSON for a message item id (pi-mono's compact form)."""
    fields: dict[str, Any] = {"v": 1, "id": item_id}
    if phase:
        fields["phase"] = phase
    return json.dumps(fields, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """Return ``(item id, phase)`` from a TextSignatureV1 JSON or a legacy bare id."""
    if not signature:
        return None, None
    if not signature.startswith("{"):
        return signature, None
    try:
        fields = as_dict(json.loads(signature))
    except ValueError:
        return None, None
    item_id, phase = fields.get("id"), fields.get("phase")
    return (
        item_id if isinstance(item_id, str) and item_id else None,
        phase if isinstance(phase, str) and phase else None,
    )


def _reasoning_item(signature: str | None) -> dict[str, Any] | None:
    if not signature:
        return None
    try:
        item = as_dict(json.loads(signature))
    except ValueError:
        return None
    return item if item.get("type") == "reasoning" else None


def _user_items(message: kit.UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": message.content}]
    else:
        parts = [
            {"type": "input_text", "text": b.text}
            if isinstance(b, kit.TextContent)
            else {"type": "input_image", "detail": "auto", "image_url": data_url(b)}
            for b in message.content
        ]
    return {"role": "user", "content": parts} if parts else None


def _assistant_items(message: kit.AssistantMessage) -> list[dict[str, Any]]:
    reasoning = [
        _reasoning_item(b.thinking_signature)
        for b in message.content
        if isinstance(b, kit.ThinkingContent)
    ]
    # Output item ids go back only with the reasoning items they belong to: OpenAI rejects a
    # msg_/fc_ item whose reasoning item is missing, and items without ids are always accepted.
    keep_ids = any(item is not None for item in reasoning)
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, kit.ThinkingContent):
            item = _reasoning_item(block.thinking_signature)
            if item is not None:
                items.append(item)
        elif isinstance(block, kit.TextContent):
            if not block.text:
                continue
            item_id, phase = parse_text_signature(block.text_signature)
            if item_id and keep_ids:
                entry: dict[str, Any] = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": block.text, "annotations": []}],
                    "status": "completed",
                    "id": item_id,
                }
                if phase:
                    entry["phase"] = phase
                items.append(entry)
            else:
                items.append({"type": "message", "role": "assistant", "content": block.text})
        else:
            call_id, _, item_id = block.id.partition("|")
            entry = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                "arguments": json.dumps(block.arguments, ensure_ascii=False),
            }
            if item_id and keep_ids:
                entry["id"] = item_id
            items.append(entry)
    return items


def _tool_result_item(message: kit.ToolResultMessage) -> dict[str, Any]:
    text = tool_result_text(message)
    images = [b for b in message.content if isinstance(b, kit.ImageContent)]
    output: str | list[dict[str, Any]]
    if images:
        output = [{"type": "input_text", "text": text}] if text else []
        output.extend(
            {"type": "input_image", "detail": "auto", "image_url": data_url(image)}
            for image in images
        )
    else:
        output = text or "(no output)"
    return {
        "type": "function_call_output",
        "call_id": message.tool_call_id.partition("|")[0],
        "output": output,
    }


def convert_input(
    model: kit.Model,
    context: kit.Context,
    *,
    foreign_reasoning: Literal["drop", "text", "tagged"] = "text",
    origin: str | None = None,
) -> list[dict[str, Any]]:
    """Convert the system prompt and history to Responses ``input`` items (pi-spec §4.3).

    The history first goes through :func:`pi_sdk.provider.transform_messages`, so reasoning items
    and
    output item ids survive only for the same model and endpoint; tool-call ids of other models
    become a bare ``call_id``. Then:

    * system prompt: role ``developer`` for reasoning models, else ``system``;
    * user: ``input_text`` / ``input_image`` parts;
    * assistant: each reasoning item (the stored JSON, with ``encrypted_content``) right before
      the items that followed it; text as an output ``message`` item with its id and phase when
      the turn replays reasoning, else as a plain assistant message; tool calls as
      ``function_call`` items (``id`` only alongside replayed reasoning);
    * tool result: ``function_call_output`` whose ``output`` is the text, or a list of
      ``input_text`` and ``input_image`` parts when the result has images (they stay in the
      output; pi-mono does the same).
    """
    history = kit.transform_messages(
        context.messages,
        model,
        normalize_tool_call_id=normalize_responses_tool_call_id,
        foreign_reasoning=foreign_reasoning,
        origin=origin,
    )
    items: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning else "system"
        items.append({"role": role, "content": kit.sanitize_surrogates(context.system_prompt)})
    for message in history:
        if isinstance(message, kit.UserMessage):
            entry = _user_items(message)
            if entry is not None:
                items.append(entry)
        elif isinstance(message, kit.AssistantMessage):
            items.extend(_assistant_items(message))
        else:
            items.append(_tool_result_item(message))
    return items


def convert_tools(tools: list[kit.Tool], *, strict: bool = False) -> list[dict[str, Any]]:
    """Return Responses function tools (``strict: false`` by default, as pi-mono sends)."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": strict,
        }
        for tool in tools
    ]


def build_payload(
    model: kit.Model,
    context: kit.Context,
    options: kit.StreamOptions | None = None,
    *,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Responses request body (before payload hooks), pi-spec §4.4.

    Args:
        model: The target model.
        context: System prompt, messages and tools.
        options: Per-call options (see the module docstring for ``provider_options``).
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`), when it is not
            ``model.base_url``.

    Returns:
        The JSON body.

    Raises:
        ConfigurationError: unknown or mistyped ``provider_options``.
    """
    options = options or kit.StreamOptions()
    kit.check_provider_options(options, PROVIDER_OPTIONS, API)
    summary = string_option(options, "reasoning_summary")
    service_tier = string_option(options, "service_tier")
    payload: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(
            model, context, foreign_reasoning=options.foreign_reasoning, origin=origin
        ),
        "stream": True,
        "store": False,
    }
    retention = options.resolved_cache_retention()
    if options.session_id and retention != "none":
        payload["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in model.base_url:
        payload["prompt_cache_retention"] = "24h"
    payload["max_output_tokens"] = max_output_tokens(model, options)
    if options.temperature is not None:
        payload["temperature"] = options.temperature
    if service_tier is not None:
        payload["service_tier"] = service_tier
    output = options.resolved_output()
    tool_choice = options.provider_options.get("tool_choice", responses_tool_choice(options))
    if output is not None and output.mode == "tool":
        context = kit.with_output_tool(context, output)
        tool_choice = {"type": "function", "name": kit.OUTPUT_TOOL_NAME}
    elif output is not None:
        payload["text"] = {"format": text_format(output)}
    if context.tools:
        payload["tools"] = convert_tools(context.tools)
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if model.reasoning:
        effort = reasoning_effort(model, options)
        if effort is not None or summary is not None:
            payload["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
        elif (off := off_effort(model)) is not None:
            payload["reasoning"] = {"effort": off}
        payload["include"] = ["reasoning.encrypted_content"]
    return payload


def off_effort(model: kit.Model) -> str | None:
    """The ``reasoning.effort`` that turns reasoning off, or ``None`` to send no ``reasoning``.

    pi-ai 0.73 sends ``{"effort": model.thinkingLevelMap.off ?? "none"}`` with reasoning off,
    except when the map says ``off: null`` (the model cannot turn reasoning off: every
    ``gpt-5*`` model of its catalog) and for GitHub Copilot. pi-sdk reads the map from
    ``model.thinking_level_map`` (the catalog's), else ``model.compat["thinkingLevelMap"]``,
    and, without an ``off`` entry in either, applies the catalog's rule by id.
    """
    if model.provider == "github-copilot":
        return None
    levels = model.thinking_level_map or (model.compat or {}).get("thinkingLevelMap")
    if isinstance(levels, dict) and "off" in levels:
        off: Any = levels["off"]  # pyright: ignore[reportUnknownVariableType]
        return off if isinstance(off, str) else None
    if model.id.startswith("gpt-5"):
        return None
    return "none"


def text_format(output: kit.Output) -> dict[str, Any]:
    """Responses' ``text.format`` for a typed answer.

    (OpenAI Structured Outputs:
    ``{"type": "json_schema", name, schema, strict}``, flat, unlike Chat Completions).
    """
    fmt: dict[str, Any] = {"type": "json_schema", "name": output.name}
    if output.description:
        fmt["description"] = output.description
    fmt["schema"] = output.wire_schema
    fmt["strict"] = output.strict_schema is not None
    return fmt
