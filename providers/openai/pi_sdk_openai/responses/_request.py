"""``openai-responses`` request: Context + StreamOptions → the Responses body (pi-spec §4.3, §4.4).

Body (:func:`build_payload`): ``input`` items from any history (:func:`convert_input`),
``stream: true``, ``store: false``, ``max_output_tokens``, ``prompt_cache_key`` =
``options.session_id`` (unless cache retention is ``"none"``; ``prompt_cache_retention: "24h"``
for ``"long"`` on api.openai.com), tools, and for reasoning models
``include: ["reasoning.encrypted_content"]`` (so each reasoning item can be replayed next turn)
plus ``reasoning: {effort, summary}`` when reasoning is requested, ``reasoning: {effort: "none"}``
when it is off on a model that can turn it off (:mod:`._reasoning`, pi-ai 0.73).

``provider_options`` keys: ``reasoning_effort`` (sent as is, overriding ``options.reasoning``),
``reasoning_summary`` (``"auto"``, ``"concise"``, ``"detailed"``; default ``"auto"`` when reasoning
is on), ``service_tier`` (``"auto"``, ``"default"``, ``"flex"``, ``"priority"``; flex costs half,
priority double) and ``tool_choice``.

Not ported from pi-mono: the ``# Juice: 0 !important`` developer message appended for models
whose *name* starts with ``gpt-5`` when reasoning is off. It is keyed on a case-sensitive name
that no catalog model has (they are named ``GPT-5...``), so it never fires in pi-mono either.
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk import provider as kit

from .._shared_request import (
    declared_tools,
    grammar_inputs,
    max_output_tokens,
    prompt_cache_key,
    responses_tool_choice,
)
from ._compat import ResponsesCompat, resolve_responses_compat
from ._input import convert_input
from ._reasoning import configuration_update_effort, reasoning_fields
from ._server_tools import SERVER_TOOL_DEFINITIONS
from ._system import read_parts
from ._tools import convert_tools, text_format

__all__ = ["API", "PATH", "build_payload", "configuration_update_effort", "string_option"]

API = "openai-responses"
PATH = "/responses"
"""Request path, relative to ``model.base_url``."""

PROVIDER_OPTIONS = ("reasoning_effort", "reasoning_summary", "service_tier", "tool_choice")
MIN_OUTPUT_TOKENS = 16
"""The smallest ``max_output_tokens`` OpenAI accepts (pi-ai 1.6 raises a lower cap to it)."""
AZURE_API = "azure-openai-responses"


def string_option(options: pi_sdk.StreamOptions, key: str) -> str | None:
    value: Any = options.provider_options.get(key)
    if value is not None and not isinstance(value, str):
        raise pi_sdk.ConfigurationError(
            f"{API}: provider_options[{key!r}] must be a string, got {value!r}"
        )
    return value


def build_payload(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions | None = None,
    *,
    origin: str | None = None,
    compat: ResponsesCompat | None = None,
) -> dict[str, Any]:
    """Build the Responses request body (before payload hooks), pi-spec §4.4, pi-ai 1.6.

    Args:
        model: The target model.
        context: System prompt, messages and tools.
        options: Per-call options (see the module docstring for ``provider_options``).
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin`), when it is not
            ``model.base_url``.
        compat: Pre-resolved flags; default :func:`~._compat.resolve_responses_compat` of
            ``model`` (Azure's defaults for ``azure-openai-responses``).

    Returns:
        The JSON body.

    Raises:
        ConfigurationError: unknown or mistyped ``provider_options`` or compat flags; a tool
            whose constrained sampling the model cannot honour (``strict: "require"``, a bad
            grammar tool).
    """
    options = options or pi_sdk.StreamOptions()
    kit.check_provider_options(options, PROVIDER_OPTIONS, API)
    azure = model.api == AZURE_API
    compat = compat or resolve_responses_compat(model, azure=azure)
    summary = string_option(options, "reasoning_summary")
    service_tier = string_option(options, "service_tier")
    output = options.resolved_output()
    forced = [kit.output_tool(output)] if output is not None and output.mode == "tool" else []
    parts = read_parts(model, context, extra_tools=forced)
    update_effort = configuration_update_effort(model, options, compat)
    grammar_tools = compat.supports_openai_grammar_tools

    def tools_of(tools: list[pi_sdk.Tool]) -> list[dict[str, Any]]:
        strict_field = compat.supports_strict_mode
        return convert_tools(tools, model, strict_field=strict_field, grammar_tools=grammar_tools)

    payload: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(
            model,
            context,
            foreign_reasoning=options.foreign_reasoning,
            origin=origin,
            parts=parts,
            convert_tools=tools_of,
            configuration_effort=update_effort,
            grammar=grammar_inputs(model, declared_tools(parts), grammar_tools),
        ),
        "stream": True,
    }
    retention = options.resolved_cache_retention()
    key_allowed = compat.prompt_cache_key_mode != "disabled"
    if options.session_id and key_allowed and (azure or retention != "none"):
        payload["prompt_cache_key"] = prompt_cache_key(options.session_id)
    if not azure:
        long_retention = retention == "long" and compat.supports_long_cache_retention
        if compat.supports_explicit_prompt_cache_mode:
            if retention == "none":
                payload["prompt_cache_options"] = {"mode": "explicit"}
            elif long_retention:
                payload["prompt_cache_options"] = {"ttl": "30m"}
        elif long_retention:
            payload["prompt_cache_retention"] = "24h"
    payload["store"] = False
    if azure or compat.supports_max_output_tokens:
        cap = max_output_tokens(model, options, context)
        payload["max_output_tokens"] = max(cap, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        payload["temperature"] = options.temperature
    if service_tier is not None:
        payload["service_tier"] = service_tier
    tool_choice = options.provider_options.get("tool_choice", responses_tool_choice(options))
    if output is not None and output.mode == "tool":
        tool_choice = {"type": "function", "name": kit.OUTPUT_TOOL_NAME}
    elif output is not None:
        payload["text"] = {"format": text_format(output)}
    if parts.tools:
        payload["tools"] = tools_of(parts.tools)
    if options.server_tools:  # OpenAI's built-in tools (docs/server-tools.md)
        server = options.resolved_server_tools(model, SERVER_TOOL_DEFINITIONS)
        payload["tools"] = [*payload.get("tools", ()), *server]
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    payload.update(reasoning_fields(model, options, summary, update_effort))
    return payload
