"""History → Responses ``input`` items (pi-spec §4.3; pi-mono ``convertResponsesMessages``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import pi_sdk
from pi_sdk import provider as kit

from .._shared_documents import RESPONSES_DOCUMENTS, input_file_part
from .._shared_ids import normalize_responses_tool_call_id
from .._shared_request import data_url, grammar_input, tool_result_text
from ._signatures import parse_text_signature, reasoning_item
from ._system import SystemItems, read_parts
from ._tools import convert_tools as function_tools

if TYPE_CHECKING:
    from pi_sdk.provider import ContextParts

__all__ = ["convert_input"]


def _user_items(message: pi_sdk.UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": message.content}]
    else:
        parts = [
            {"type": "input_text", "text": b.text}
            if isinstance(b, pi_sdk.TextContent)
            else _media_part(b)
            for b in message.content
        ]
    return {"role": "user", "content": parts} if parts else None


def _media_part(block: pi_sdk.ImageContent | pi_sdk.DocumentContent) -> dict[str, Any]:
    if isinstance(block, pi_sdk.DocumentContent):
        return input_file_part(block)
    return {"type": "input_image", "detail": "auto", "image_url": data_url(block)}


def _assistant_items(
    message: pi_sdk.AssistantMessage, grammar: Mapping[str, str]
) -> list[dict[str, Any]]:
    reasoning = [
        reasoning_item(b.thinking_signature)
        for b in message.content
        if isinstance(b, pi_sdk.ThinkingContent)
    ]
    # Output item ids go back only with the reasoning items they belong to: OpenAI rejects a
    # msg_/fc_ item whose reasoning item is missing, and items without ids are always accepted.
    keep_ids = any(item is not None for item in reasoning)
    # A turn without reasoning has no reasoning item to miss: its annotated text goes back as
    # the output message it came as (the recorded follow-ups of web search do so).
    unreasoned = not reasoning
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, pi_sdk.ThinkingContent):
            item = reasoning_item(block.thinking_signature)
            if item is not None:
                items.append(item)
        elif isinstance(block, pi_sdk.TextContent):
            if not block.text:
                continue
            item_id, phase = parse_text_signature(block.text_signature)
            annotations = [c.raw for c in block.citations or () if c.raw is not None]
            if item_id and (keep_ids or (unreasoned and annotations)):
                part = {"type": "output_text", "text": block.text, "annotations": annotations}
                entry: dict[str, Any] = {
                    "type": "message",
                    "role": "assistant",
                    "content": [part],
                    "status": "completed",
                    "id": item_id,
                }
                if phase:
                    entry["phase"] = phase
                items.append(entry)
            else:
                items.append({"type": "message", "role": "assistant", "content": block.text})
        elif isinstance(block, pi_sdk.ServerToolCall | pi_sdk.ServerToolResult):
            if block.raw is not None:  # a server tool's output item, replayed as it came
                items.append(block.raw)
        elif isinstance(block, pi_sdk.ImageContent):
            continue  # a generated image: its image_generation_call item (above) holds it
        else:
            items.append(_call_item(block, grammar, keep_ids))
    return items


def _call_item(call: pi_sdk.ToolCall, grammar: Mapping[str, str], keep_id: bool) -> dict[str, Any]:
    """A ``function_call`` item, or a ``custom_tool_call`` for a grammar tool of this request.

    The item id goes only with its reasoning item and only when its prefix fits the item type
    (``fc_`` / ``ctc_``): a call can change type when grammar support differs (pi-ai 1.6).
    """
    call_id, _, item_id = call.id.partition("|")
    prop = grammar.get(call.name)
    if prop is not None:
        text = kit.sanitize_surrogates(grammar_input(call, prop))
        entry: dict[str, Any] = {"type": "custom_tool_call", "call_id": call_id}
        entry |= {"name": call.name, "input": text}
    else:
        arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        entry = {"type": "function_call", "call_id": call_id}
        entry |= {"name": call.name, "arguments": arguments}
    if item_id and keep_id and item_id.startswith("ctc_" if prop is not None else "fc_"):
        entry["id"] = item_id
    return entry


def _tool_result_item(message: pi_sdk.ToolResultMessage, custom: bool) -> dict[str, Any]:
    text = tool_result_text(message)
    media = [b for b in message.content if not isinstance(b, pi_sdk.TextContent)]
    output: str | list[dict[str, Any]]
    if media:
        output = [{"type": "input_text", "text": text}] if text else []
        output.extend(_media_part(block) for block in media)
    else:
        output = text or "(no output)"
    return {
        "type": "custom_tool_call_output" if custom else "function_call_output",
        "call_id": message.tool_call_id.partition("|")[0],
        "output": output,
    }


def convert_input(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    *,
    foreign_reasoning: Literal["drop", "text", "tagged"] = "drop",
    origin: str | None = None,
    parts: ContextParts | None = None,
    configuration_effort: str | None = None,
    convert_tools: Callable[[list[pi_sdk.Tool]], list[dict[str, Any]]] | None = None,
    grammar: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Convert the system prompt and history to Responses ``input`` items (pi-spec §4.3).

    The prompt, tools and later system messages are read by :func:`._system.read_parts`
    (``parts``, when the caller read them already; see :mod:`._system`); ``convert_tools``
    writes the tools of ``additional_tools`` items (default: plain function tools), and
    ``grammar`` (tool name -> input property, :func:`._tools.grammar_inputs`) names the grammar
    tools whose calls and results go as ``custom_tool_call`` / ``custom_tool_call_output``.

    The history first goes through :func:`pi_sdk.provider.transform_messages`, so reasoning items
    and
    output item ids survive only for the same model and endpoint; tool-call ids of other models
    become a bare ``call_id``. Then:

    * system prompt and system messages: role ``developer`` for reasoning models, else
      ``system``;
    * user: ``input_text`` / ``input_image`` / ``input_file`` parts;
    * assistant: each reasoning item (the stored JSON, with ``encrypted_content``) right before
      the items that followed it; text as an output ``message`` item with its id, phase and
      annotations (the same source's citations) when the turn replays reasoning or has none
      but annotations, else as a plain assistant message; server-tool items as they came (an
      image the model made is in its ``image_generation_call`` item); tool calls as
      ``function_call`` items (``id`` only alongside replayed reasoning);
    * tool result: ``function_call_output`` whose ``output`` is the text, or a list of
      ``input_text``, ``input_image`` and ``input_file`` parts when the result has images or
      documents (they stay in the output; pi-mono does the same for images);
    * ``configuration_effort`` (:func:`._reasoning.configuration_update_effort`): a
      ``configuration_update`` item of each same-model reply's ``provider_thinking_level``
      before its items, and one of ``configuration_effort`` last (pi-ai 1.6).
    """
    parts = parts or read_parts(model, context)
    history = kit.transform_messages(
        parts.messages,
        model,
        normalize_tool_call_id=normalize_responses_tool_call_id,
        foreign_reasoning=foreign_reasoning,
        origin=origin,
        documents=RESPONSES_DOCUMENTS,
    )
    grammar = grammar or {}

    def plain_tools(tools: list[pi_sdk.Tool]) -> list[dict[str, Any]]:
        return function_tools(tools, model, strict_field=False)

    convert = convert_tools or plain_tools
    system = SystemItems(parts, "developer" if model.reasoning else "system", convert)
    items = system.items(parts.leading, leading=True) if parts.leading is not None else []
    for message in history:
        if isinstance(message, pi_sdk.SystemMessage):
            items.extend(system.items(message, leading=False))
        elif isinstance(message, pi_sdk.UserMessage):
            entry = _user_items(message)
            if entry is not None:
                items.append(entry)
        elif isinstance(message, pi_sdk.AssistantMessage):
            output = _assistant_items(message, grammar)
            level = message.provider_thinking_level
            same = (message.provider, message.api, message.model) == (
                model.provider,
                model.api,
                model.id,
            )
            if output and configuration_effort is not None and level is not None and same:
                items.append(_configuration_update(level))
            items.extend(output)
        else:
            items.append(_tool_result_item(message, message.tool_name in grammar))
    if configuration_effort is not None:
        items.append(_configuration_update(configuration_effort))
    return items


def _configuration_update(effort: str) -> dict[str, Any]:
    return {"type": "configuration_update", "reasoning": {"effort": effort}}
