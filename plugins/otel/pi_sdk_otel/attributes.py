"""pi-sdk values as OpenTelemetry GenAI semantic-convention attributes (semconv 1.37+, GenAI).

Names and value shapes follow the OpenTelemetry GenAI conventions ("Semantic conventions for
generative client AI spans" and "GenAI agent spans", status Development): attribute keys
below, ``gen_ai.provider.name`` well-known values, the finish reasons of the output-messages
JSON schema, and the input/output message JSON schemas (``role`` + ``parts``), recorded on
spans as JSON strings (the conventions' rule while structured span attributes are not
supported by the Python SDK).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from pi_sdk import (
    AssistantMessage,
    Context,
    Message,
    Model,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    current_tools,
    normalize_context,
)
from pi_sdk.types import ImageContent, TextContent, ThinkingContent, ToolCall, Usage

__all__ = [
    "ERROR_TYPE",
    "FINISH_REASONS",
    "PROVIDER_NAMES",
    "error_type",
    "input_messages",
    "output_messages",
    "provider_name",
    "system_instructions",
    "tool_definitions",
    "usage_attributes",
]

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS_KEY = "gen_ai.response.finish_reasons"
CONVERSATION_ID = "gen_ai.conversation.id"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_CREATION_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"
STOP_REASON = "pi_sdk.stop_reason"
"""pi-sdk's own ``stop_reason`` (``stop``, ``length``, ``toolUse``, ``error``, ``aborted``)."""
TURN_INDEX = "pi_sdk.turn.index"
"""The turn's number in its run, from 1 (no GenAI convention names turns)."""

PROVIDER_NAMES: dict[str, str] = {
    "amazon-bedrock": "aws.bedrock",
    "anthropic": "anthropic",
    "azure-openai-responses": "azure.ai.openai",
    "deepseek": "deepseek",
    "google": "gcp.gemini",
    "google-vertex": "gcp.vertex_ai",
    "groq": "groq",
    "mistral": "mistral_ai",
    "openai": "openai",
    "xai": "x_ai",
}
"""pi provider id -> the conventions' well-known ``gen_ai.provider.name``; others pass as is."""

FINISH_REASONS: dict[str, str] = {
    "stop": "stop",
    "length": "length",
    "toolUse": "tool_call",
    "error": "error",
    "aborted": "error",
}
"""pi ``stop_reason`` -> the output-messages schema's finish reason (``pi_sdk.stop_reason``
keeps pi's own value, which tells an abort from an error)."""

_STATUS = re.compile(r"^([1-5]\d\d)\b")


@functools.cache
def scope_version() -> str:
    """pi-sdk-otel's version: the instrumentation scope's version of its tracer and meter."""
    from importlib.metadata import version

    return version("pi-sdk-otel")


def provider_name(provider: str) -> str:
    """Return ``gen_ai.provider.name`` for a pi provider id (``"google"`` -> ``"gcp.gemini"``)."""
    return PROVIDER_NAMES.get(provider, provider)


def error_type(message: AssistantMessage) -> str | None:
    """Return ``error.type`` for a failed call, ``None`` for one that did not fail.

    The documented list: ``"aborted"`` (the call was aborted, or its stream closed early),
    the HTTP status of a vendor error (``"429"``, ``"500"``: pi-sdk error messages start with
    it), ``"timeout"`` (``timeout_ms`` / ``idle_timeout_ms`` exceeded), else ``"_OTHER"``.
    """
    if message.stop_reason == "aborted":
        return "aborted"
    if message.stop_reason != "error":
        return None
    text = message.error_message or ""
    status = _STATUS.match(text)
    if status is not None:
        return status.group(1)
    if text.startswith("timed out"):
        return "timeout"
    return "_OTHER"


def usage_attributes(usage: Usage) -> dict[str, int]:
    """Return the token-usage attributes of one call or a run's sum (tokens).

    ``gen_ai.usage.input_tokens`` counts every input token, cached ones included (the
    conventions' rule), so it is ``input + cache_read + cache_write``; the cached parts are
    also given on their own.
    """
    return {
        INPUT_TOKENS: usage.input + usage.cache_read + usage.cache_write,
        OUTPUT_TOKENS: usage.output,
        CACHE_READ_TOKENS: usage.cache_read,
        CACHE_CREATION_TOKENS: usage.cache_write,
    }


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """What JSON cannot encode: pydantic models in pi's JSON shape, anything else as repr."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return repr(value)


def _content_parts(content: str | Sequence[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "content": block.text})
        elif isinstance(block, ThinkingContent):
            parts.append({"type": "reasoning", "content": block.thinking})
        elif isinstance(block, ToolCall):
            parts.append(
                {
                    "type": "tool_call",
                    "id": block.id,
                    "name": block.name,
                    "arguments": block.arguments,
                }
            )
        elif isinstance(block, ImageContent):
            # The image's bytes stay out of telemetry: its type says what was sent.
            parts.append({"type": "image", "modality": "image", "mime_type": block.mime_type})
    return parts


def _message(message: Message) -> dict[str, Any]:
    if isinstance(message, SystemMessage):  # a later one (pi-ai 1.6): what changed
        return {"role": "system", "parts": [{"type": "text", "content": message.update_text}]}
    if isinstance(message, UserMessage):
        return {"role": "user", "parts": _content_parts(message.content)}
    if isinstance(message, ToolResultMessage):
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        part = {"type": "tool_call_response", "id": message.tool_call_id, "response": text}
        return {"role": "tool", "parts": [part]}
    return {"role": "assistant", "parts": _content_parts(message.content)}


def input_messages(context: Context) -> str:
    """``gen_ai.input.messages``: the chat history sent, as the input-messages JSON schema.

    The leading system message is :func:`system_instructions`' (left out here); a later one
    is a ``system`` message with the text of its update.
    """
    messages = normalize_context(context).messages
    if messages and isinstance(messages[0], SystemMessage):
        messages = messages[1:]
    return _dumps([_message(m) for m in messages])


def output_messages(message: AssistantMessage) -> str:
    """``gen_ai.output.messages``: the one reply, as the output-messages JSON schema."""
    reply = _message(message)
    reply["finish_reason"] = FINISH_REASONS.get(message.stop_reason, message.stop_reason)
    return _dumps([reply])


def system_instructions(prompt: str) -> str:
    """``gen_ai.system_instructions``: the system prompt as one text part."""
    return _dumps([{"type": "text", "content": prompt}])


def tool_definitions(context: Context) -> str:
    """``gen_ai.tool.definitions``: the tools offered (the context's current ones)."""
    tools = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
        }
        for t in current_tools(context)
    ]
    return _dumps(tools)


def tool_value(value: Any) -> str:
    """A tool's arguments or result as a JSON string (``gen_ai.tool.call.*``)."""
    return _dumps(value)


def model_attributes(model: Model) -> Mapping[str, str | int]:
    """The request attributes every span of a call or run gets from its model (read-only).

    ``server.address`` / ``server.port`` come from ``model.base_url`` when it has a host.
    """
    return _model_attributes(model.provider, model.id, model.base_url or "")


@functools.lru_cache(maxsize=256)
def _model_attributes(provider: str, model_id: str, base_url: str) -> Mapping[str, str | int]:
    attributes: dict[str, str | int] = {
        PROVIDER: provider_name(provider),
        REQUEST_MODEL: model_id,
    }
    url = urlsplit(base_url) if base_url else None
    if url is not None and url.hostname:
        attributes[SERVER_ADDRESS] = url.hostname
        port = url.port or (443 if url.scheme == "https" else 80 if url.scheme == "http" else None)
        if port is not None:
            attributes[SERVER_PORT] = port
    return MappingProxyType(attributes)
