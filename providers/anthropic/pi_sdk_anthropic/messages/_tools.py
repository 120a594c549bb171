"""Anthropic Messages tools: ``tools``, ``tool_choice``, Claude Code names, the tool-loop rule.

pi-mono ``providers/anthropic.ts`` ``convertTools``, ``toClaudeCodeName`` / ``fromClaudeCodeName``
(OAuth mode sends Claude Code's own tool spellings) and Anthropic's "Extended thinking with tool
use" rule; pi-spec §4.1.
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk
from pi_sdk.provider import ProviderError, sanitize_tool_call_id

from .._client import supports_eager_tool_input_streaming
from ._compat import resolve_anthropic_compat

__all__ = [
    "STRICT_LIMITS",
    "TOOL_CALL_ID_MAX_LEN",
    "convert_tools",
    "declared_tools",
    "from_claude_code_name",
    "neutral_tool_choice",
    "normalize_tool_call_id",
    "refused_strict",
    "sends_preferred_strict",
    "strict_rejects",
    "to_claude_code_name",
    "tool_loop_without_thinking",
]

_CLAUDE_CODE_TOOLS = (
    "Read Write Edit Bash Grep Glob AskUserQuestion EnterPlanMode ExitPlanMode KillShell "
    "NotebookEdit Skill Task TaskOutput TodoWrite WebFetch WebSearch"
).split()
_CLAUDE_CODE_BY_LOWER = {name.lower(): name for name in _CLAUDE_CODE_TOOLS}


def to_claude_code_name(name: str) -> str:
    """Return Claude Code's spelling of a tool name (OAuth mode; pi-mono ``toClaudeCodeName``)."""
    return _CLAUDE_CODE_BY_LOWER.get(name.lower(), name)


def from_claude_code_name(name: str, context: pi_sdk.Context) -> str:
    """Map a tool name the model sent in OAuth mode back to the caller's tool name.

    A tool of the context (any tool its transcript declares, :func:`pi_sdk.current_tools`
    first) that matches case-insensitively wins; otherwise the name is kept (pi-mono
    ``fromClaudeCodeName``).
    """
    lowered = name.lower()
    messages = pi_sdk.normalize_context(context).messages
    declared = [
        tool
        for message in messages
        if isinstance(message, pi_sdk.SystemMessage)
        for tool in message.tools_added or ()
    ]
    for tool in [*pi_sdk.current_tools(messages), *declared]:
        if tool.name.lower() == lowered:
            return tool.name
    return name


def neutral_tool_choice(options: pi_sdk.StreamOptions) -> dict[str, Any] | None:
    """Return ``StreamOptions.tool_choice`` as Anthropic's ``tool_choice``.

    ``auto``, ``none``, ``any`` (required) or ``{"type": "tool", "name"}``.
    """
    resolved = options.resolved_tool_choice()
    if resolved is None:
        return None
    kind, name = resolved
    if kind == "tool":
        return {"type": "tool", "name": name}
    return {"type": "any" if kind == "required" else kind}


_KEPT_ROOT_KEYS = ("additionalProperties", "$defs", "definitions")
"""Root schema keys sent besides type, properties and required (pi-ai 1.6 ``convertTools``)."""
_STRICT_REJECTED = frozenset(
    "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf maxItems uniqueItems"
    " minContains maxContains minProperties maxProperties".split()
)
_STRICT_FORMATS = frozenset(
    "date-time time date duration email hostname uri ipv4 ipv6 uuid".split()
)


def strict_rejects(key: str, value: Any) -> bool:
    """Whether Anthropic's strict tool use rejects this schema keyword (a 400 for the request).

    Anthropic "Structured outputs", JSON Schema limitations: no numeric bounds, ``maxItems``,
    ``uniqueItems``, ``minItems`` other than 0 or 1, and only the listed string formats.
    """
    if key in _STRICT_REJECTED:
        return True
    if key == "minItems":
        return value not in (0, 1)
    if key == "format":
        return not isinstance(value, str) or value not in _STRICT_FORMATS
    return False


def convert_tools(
    tools: list[pi_sdk.Tool],
    model: pi_sdk.Model,
    *,
    oauth: bool,
    cache_control: dict[str, Any] | None,
    prefer_strict: bool,
) -> list[dict[str, Any]]:
    """Return the ``tools`` array as pi-ai 1.6 ``convertTools`` sends it.

    ``eager_input_streaming`` per tool (:func:`supports_eager_tool_input_streaming`) and the
    prompt-cache breakpoint (``cache_control``) on the last tool, so the tool definitions are
    cached with the system prompt. The ``input_schema`` is an object schema: ``properties``,
    ``required`` and, when given, ``additionalProperties``, ``$defs`` and ``definitions``. A
    tool whose constrained sampling resolves to strict on a
    model with compat ``supportsStrictTools`` carries ``strict: true`` and its schema made
    strict-compatible (:meth:`pi_sdk.Tool.strict_mode` with :func:`strict_rejects`);
    ``prefer_strict=False`` sends ``strict: "prefer"`` tools non-strict (:func:`refused_strict`).

    Raises:
        ConfigurationError: a ``strict: "require"`` tool the model cannot take strict.
    """
    eager = supports_eager_tool_input_streaming(model)
    supported = resolve_anthropic_compat(model).supports_strict_tools
    converted: list[dict[str, Any]] = []
    for tool in tools:
        entry: dict[str, Any] = {
            "name": to_claude_code_name(tool.name) if oauth else tool.name,
            "description": tool.description,
        }
        if eager:
            entry["eager_input_streaming"] = True
        strict = tool.strict_mode(model, supported, strict_rejects, prefer=prefer_strict)
        parameters = tool.wire_parameters(strict)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": parameters.get("properties") or {},
            "required": parameters.get("required") or [],
        }
        # Kept for $refs and the extra-arguments rule; other root keywords (anyOf ...) get a 400.
        schema |= {k: parameters[k] for k in _KEPT_ROOT_KEYS if parameters.get(k) is not None}
        if strict:
            entry["strict"] = True
            schema = {**parameters, **schema}
        entry["input_schema"] = schema
        converted.append(entry)
    if converted and cache_control is not None:
        converted[-1]["cache_control"] = dict(cache_control)
    return converted


STRICT_LIMITS = "strict_tool_limits_exceeded"
"""Why a request goes again with its ``prefer`` tools non-strict (the diagnostic's ``reason``,
and the key a session is remembered under; pi-ai 1.6, shared with Bedrock)."""


def sends_preferred_strict(model: pi_sdk.Model, context: pi_sdk.Context) -> bool:
    """Whether the request sends a ``strict: "prefer"`` tool strict.

    Only such a request is sent again without them (pi-ai 1.6 ``hasPreferredStrictTools``).
    Counts every tool the context declares (the request defines them, or a ``tool_addition``
    block does); a scan of the messages, not their conversion, as it runs on every call.
    """
    preferred = [tool for tool in declared_tools(context) if tool.prefers_strict()]
    if not preferred or not resolve_anthropic_compat(model).supports_strict_tools:
        return False
    return any(tool.strict_mode(model, True, strict_rejects) for tool in preferred)


def declared_tools(context: pi_sdk.Context) -> list[pi_sdk.Tool]:
    """Every tool the context declares (``tools``, system messages), removed ones too."""
    # by role: an isinstance check of a pydantic model costs about a microsecond a message
    added = [m.tools_added for m in context.messages if m.role == "system" and m.tools_added]
    return [*(context.tools or ()), *(tool for tools in added for tool in tools)]


def refused_strict(error: ProviderError) -> str | None:
    """The diagnostic type of a refusal of strict tools over Claude's limits, else ``None``.

    ``"anthropic_strict_tools_fallback"`` for an HTTP 400 ``invalid_request_error`` whose
    message is one of :meth:`pi_sdk.Tool.is_strict_limit_error`'s (pi-ai 1.6
    ``anthropic-messages.ts``).
    """
    text = str(error)
    refused = error.status == 400 and ": invalid_request_error: " in text
    return (
        "anthropic_strict_tools_fallback"
        if refused and pi_sdk.Tool.is_strict_limit_error(text)
        else None
    )


def tool_loop_without_thinking(messages: list[dict[str, Any]]) -> bool:
    """True when the request continues a tool loop whose assistant turn has no thinking first.

    Anthropic's extended-thinking rule (docs: "Extended thinking with tool use"): while a tool
    loop is in progress (the last message carries ``tool_result`` blocks), the preceding
    assistant turn must begin with ``thinking`` or ``redacted_thinking``.
    """
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return False
    last = messages[-1].get("content")
    if not isinstance(last, list):
        return False
    blocks = cast(list[dict[str, Any]], last)
    if not any(block.get("type") == "tool_result" for block in blocks):
        return False
    previous = messages[-2]
    content = previous.get("content")
    if previous.get("role") != "assistant" or not isinstance(content, list) or not content:
        return False
    first = cast(list[dict[str, Any]], content)[0]
    return first.get("type") not in ("thinking", "redacted_thinking")


TOOL_CALL_ID_MAX_LEN = 64
"""Anthropic's limit on a ``tool_use`` id, in characters (``^[a-zA-Z0-9_-]+$``)."""


def normalize_tool_call_id(
    tool_call_id: str, model: pi_sdk.Model, source: pi_sdk.AssistantMessage
) -> str:
    """Make another model's tool-call id valid for Anthropic: ``^[a-zA-Z0-9_-]+$``, ≤ 64 chars.

    A valid id is kept; any other gets ``_`` for each other character, is cut and gets a hash of
    the original (:func:`pi_sdk.provider.sanitize_tool_call_id`), so distinct ids stay distinct. An
    OpenAI Responses id ``call_…|fc_…`` keeps both parts (pi-mono ``normalizeToolCallId`` of
    ``anthropic.ts``; pi-spec §4.1). The :data:`pi_sdk.provider.ToolCallIdNormalizer` passed to
    :func:`pi_sdk.provider.transform_messages`.
    """
    del model, source
    return sanitize_tool_call_id(tool_call_id, max_len=TOOL_CALL_ID_MAX_LEN)
