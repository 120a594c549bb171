"""The ``openai-responses`` wire API: OpenAI's Responses API (and OpenRouter's copy of it).

Request (:func:`build_responses_payload`, pi-spec §4.4): ``input`` items from any history
(:func:`~pi_sdk_openai._responses_shared.convert_responses_input`), ``stream: true``,
``store: false``, ``max_output_tokens``, ``prompt_cache_key`` = ``options.session_id`` (unless
cache retention is ``"none"``; ``prompt_cache_retention: "24h"`` for ``"long"`` on
api.openai.com), tools, and for reasoning models ``include: ["reasoning.encrypted_content"]``
(so each reasoning item can be replayed next turn) plus ``reasoning: {effort, summary}`` when
reasoning is requested.

``provider_options`` keys: ``reasoning_effort`` (sent as is, overriding ``options.reasoning``),
``reasoning_summary`` (``"auto"``, ``"concise"``, ``"detailed"``; default ``"auto"`` when reasoning
is on), ``service_tier`` (``"auto"``, ``"default"``, ``"flex"``, ``"priority"``; flex costs half,
priority double) and ``tool_choice``.

Not ported from pi-mono: the ``# Juice: 0 !important`` developer message appended for models
whose *name* starts with ``gpt-5`` when reasoning is off. It is keyed on a case-sensitive name
that no catalog model has (they are named ``GPT-5...``), so it never fires in pi-mono either.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from pi_sdk.provider import AssistantMessageEvent, ConfigurationError, Context, Model, StreamOptions

from ._common import check_provider_options, max_output_tokens, reasoning_effort
from ._http import run_stream
from ._responses_shared import ResponsesDecoder, convert_responses_input, convert_responses_tools

__all__ = ["API", "PATH", "ResponsesDecoder", "build_responses_payload", "stream_openai_responses"]

API = "openai-responses"
PATH = "/responses"
"""Request path, relative to ``model.base_url``."""

PROVIDER_OPTIONS = ("reasoning_effort", "reasoning_summary", "service_tier", "tool_choice")


def _string_option(options: StreamOptions, key: str) -> str | None:
    value: Any = options.provider_options.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigurationError(
            f"{API}: provider_options[{key!r}] must be a string, got {value!r}"
        )
    return value


def build_responses_payload(
    model: Model,
    context: Context,
    options: StreamOptions | None = None,
    *,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Responses request body (before payload hooks), pi-spec §4.4.

    Args:
        model: The target model.
        context: System prompt, messages and tools.
        options: Per-call options (see the module docstring for ``provider_options``).
        origin: Where the request goes (:func:`pi_sdk.signature_origin`), when it is not
            ``model.base_url``.

    Returns:
        The JSON body.

    Raises:
        ConfigurationError: unknown or mistyped ``provider_options``.
    """
    options = options or StreamOptions()
    check_provider_options(options, PROVIDER_OPTIONS, API)
    summary = _string_option(options, "reasoning_summary")
    service_tier = _string_option(options, "service_tier")
    payload: dict[str, Any] = {
        "model": model.id,
        "input": convert_responses_input(
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
    if context.tools:
        payload["tools"] = convert_responses_tools(context.tools)
    tool_choice = options.provider_options.get("tool_choice")
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if model.reasoning:
        effort = reasoning_effort(model, options)
        if effort is not None or summary is not None:
            payload["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
        payload["include"] = ["reasoning.encrypted_content"]
    return payload


async def stream_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call a Responses endpoint and yield normalized events (``openai-responses``).

    Contract (:data:`pi_sdk.StreamFunction`): ``start`` once the response body begins, then block
    events, then ``done`` (or ``error`` for refusals). HTTP errors, ``response.failed``, ``error``
    events and cut streams raise :class:`pi_sdk.ProviderError`; the core turns them into the
    terminal ``error`` event with the partial message kept. ``options.client`` (an
    ``openai.AsyncOpenAI``) replaces the client built from ``model.base_url`` and the API key.
    """
    tier = _string_option(options, "service_tier")
    stream = run_stream(
        model,
        options,
        path=PATH,
        build_payload=lambda origin: build_responses_payload(
            model, context, options, origin=origin
        ),
        decoder=lambda output: ResponsesDecoder(model, output, service_tier=tier),
    )
    async with aclosing(stream) as events:  # closes the response when the consumer stops early
        async for event in events:
            yield event
