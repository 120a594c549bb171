"""The provider kit: what a provider package is written on (at most 51 names).

``from pi_sdk.provider import ...`` is the namespace for provider authors (the ``pi-sdk-<vendor>``
packages and third-party packages that add a provider or a wire API):

* the contract: a :class:`Provider` (its auth, catalog, run-time model list and wire APIs), an
  :class:`ApiProvider` (one wire API: a ``call`` returning the :class:`HttpCall` plan whose
  reply the core reads, or a plain ``stream`` generator), the decoder protocols;
* the :class:`MessageBuilder` every decoder writes into, provider errors and their wording,
  vendor client caching and connection pools, server-sent events for a stream function that
  reads its reply itself, :class:`ContextParts` (the one way a provider reads the prompt, tools
  and messages of a context, pi-ai 1.6 system messages included), the history transform and
  tool-call id rules, the forced output tool,
  and the helpers a call needs (key, payload hooks, base URL, provider options, replay).

The wire types, events and errors a provider builds come from :mod:`pi_sdk` (``pi_sdk.Model``,
``pi_sdk.TextContent``...). Names this namespace exported before issue 26 still answer, with a
``DeprecationWarning`` saying where they live now. Users import ``pi_sdk``; everything under an
underscore can change in any release (``docs/api.md``).
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "resolve_base_url": "pi_sdk._kit.base_url",
    "package_providers": "pi_sdk._kit.catalog_providers",
    "provider_factory": "pi_sdk._kit.catalog_providers",
    "ClientCache": "pi_sdk._kit.clients",
    "shared_in_thread": "pi_sdk._kit.clients",
    "ContextParts": "pi_sdk._kit.context_parts",
    "PooledTransport": "pi_sdk._kit.http_pool",
    "output_tool": "pi_sdk._kit.output_request",
    "with_output_tool": "pi_sdk._kit.output_request",
    "lazy_api": "pi_sdk._kit.plugin_hooks",
    "lazy_call": "pi_sdk._kit.plugin_hooks",
    "check_provider_options": "pi_sdk._kit.provider_options",
    "recorded_model": "pi_sdk._kit.recorded_model",
    "import_vendor": "pi_sdk._kit.vendor_import",
    "apply_payload_hooks": "pi_sdk._models.calls",
    "resolve_api_key": "pi_sdk._models.calls",
    "BlockKey": "pi_sdk._stream.builder",
    "Events": "pi_sdk._stream.builder",
    "MessageBuilder": "pi_sdk._stream.builder",
    "ApiProvider": "pi_sdk._stream.contract",
    "CallFunction": "pi_sdk._stream.contract",
    "HttpCall": "pi_sdk._stream.contract",
    "StreamFunction": "pi_sdk._stream.contract",
    "connection_error_from_httpx": "pi_sdk._stream.httpx_errors",
    "FetchContext": "pi_sdk._stream.provider",
    "FetchedModels": "pi_sdk._stream.provider",
    "Provider": "pi_sdk._stream.provider",
    "ProviderAuth": "pi_sdk._stream.provider",
    "ProviderError": "pi_sdk._stream.provider_errors",
    "body_excerpt": "pi_sdk._stream.provider_errors",
    "connection_error": "pi_sdk._stream.provider_errors",
    "describe_exception": "pi_sdk._stream.provider_errors",
    "http_error_message": "pi_sdk._stream.provider_errors",
    "malformed_event_error": "pi_sdk._stream.provider_errors",
    "retry_after_ms": "pi_sdk._stream.provider_errors",
    "iter_sse": "pi_sdk._stream.sse",
    "parse_event": "pi_sdk._stream.sse_json",
    "ByteDecoder": "pi_sdk._stream.wire_decoder",
    "HttpResponse": "pi_sdk._stream.wire_decoder",
    "WireDecoder": "pi_sdk._stream.wire_decoder",
    "load_models_json": "pi_sdk._wire.cost",
    "ToolCallIdNormalizer": "pi_sdk._wire.ids",
    "fit_id": "pi_sdk._wire.ids",
    "sanitize_tool_call_id": "pi_sdk._wire.ids",
    "short_hash": "pi_sdk._wire.ids",
    "OUTPUT_TOOL_NAME": "pi_sdk._wire.output",
    "is_same_source": "pi_sdk._wire.transform",
    "signature_origin": "pi_sdk._wire.transform",
    "transform_messages": "pi_sdk._wire.transform",
    "sanitize_surrogates": "pi_sdk._wire.unicode",
}
"""Public name -> the module that defines it."""

_DEPRECATED = {
    "lazy_stream": (
        "pi_sdk._kit.plugin_hooks",
        "use lazy_api(api, module, stream=name), which imports the module on first use",
    ),
    "get_api_key": ("pi_sdk._models.default", "use resolve_api_key(model, options)"),
    "Output": ("pi_sdk.options", "import it from pi_sdk.options"),
    **dict.fromkeys(
        ("api_providers_hook", "env_api_key_hook", "lazy_recognizer", "models_hook"),
        (
            "pi_sdk._kit.plugin_hooks",
            "publish a Provider (package_providers) through the entry point instead",
        ),
    ),
    **dict.fromkeys(
        ("REDACTED", "Redactor", "redact_text"),
        ("pi_sdk._wire.redact", "import it from pi_sdk.plugins"),
    ),
    # Moved to the application namespace: `pi_sdk.Model`, `pi_sdk.StreamOptions`...
    **{
        name: ("pi_sdk", f"import it from pi_sdk (`pi_sdk.{name}`)")
        for name in (
            "AssistantMessage",
            "AssistantMessageEvent",
            "AssistantMessageEventStream",
            "ConfigurationError",
            "Context",
            "Cost",
            "DoneEvent",
            "ErrorEvent",
            "ForeignReasoning",
            "ImageContent",
            "Message",
            "Model",
            "ModelNotFoundError",
            "StartEvent",
            "StopReason",
            "StreamOptions",
            "TextContent",
            "TextDeltaEvent",
            "TextEndEvent",
            "TextStartEvent",
            "ThinkingContent",
            "ThinkingDeltaEvent",
            "ThinkingEndEvent",
            "ThinkingLevel",
            "ThinkingStartEvent",
            "Tool",
            "ToolCall",
            "ToolCallDeltaEvent",
            "ToolCallEndEvent",
            "ToolCallStartEvent",
            "ToolResultMessage",
            "Usage",
            "UserMessage",
            "get_model",
            "hookimpl",
            "now_ms",
            "tune_gc_for_streams",
        )
    },
    # No longer public anywhere: name -> the module that still defines it.
    **{
        name: (module, "it is no longer part of the provider kit")
        for name, module in {
            "new_assistant_message": "pi_sdk._stream.assistant_message",
            "RequestRecognizer": "pi_sdk._stream.contract",
            "TransportErrors": "pi_sdk._stream.contract",
            "httpx_transport_errors": "pi_sdk._stream.httpx_errors",
            "IncrementalJsonParser": "pi_sdk._stream.partial_json",
            "parse_partial_json": "pi_sdk._stream.partial_json",
            "FetchModels": "pi_sdk._stream.provider",
            "ConnectionPhase": "pi_sdk._stream.provider_errors",
            "RETRYABLE_STATUS": "pi_sdk._stream.provider_errors",
            "ResponseBody": "pi_sdk._stream.response_body",
            "ServerSentEvent": "pi_sdk._stream.sse",
            "is_json_response": "pi_sdk._stream.wire_decoder",
            "calculate_cost": "pi_sdk._wire.cost",
            "is_same_model": "pi_sdk._wire.transform",
        }.items()
    },
}
"""Names exported before issue 26: still answered, with a warning (module, what to do)."""

if _typing.TYPE_CHECKING:
    from pi_sdk._kit.base_url import resolve_base_url as resolve_base_url
    from pi_sdk._kit.catalog_providers import package_providers as package_providers
    from pi_sdk._kit.catalog_providers import provider_factory as provider_factory
    from pi_sdk._kit.clients import ClientCache as ClientCache
    from pi_sdk._kit.clients import shared_in_thread as shared_in_thread
    from pi_sdk._kit.context_parts import ContextParts as ContextParts
    from pi_sdk._kit.http_pool import PooledTransport as PooledTransport
    from pi_sdk._kit.output_request import output_tool as output_tool
    from pi_sdk._kit.output_request import with_output_tool as with_output_tool
    from pi_sdk._kit.plugin_hooks import lazy_api as lazy_api
    from pi_sdk._kit.plugin_hooks import lazy_call as lazy_call
    from pi_sdk._kit.provider_options import check_provider_options as check_provider_options
    from pi_sdk._kit.recorded_model import recorded_model as recorded_model
    from pi_sdk._kit.vendor_import import import_vendor as import_vendor
    from pi_sdk._models.calls import apply_payload_hooks as apply_payload_hooks
    from pi_sdk._models.calls import resolve_api_key as resolve_api_key
    from pi_sdk._stream.builder import BlockKey as BlockKey
    from pi_sdk._stream.builder import Events as Events
    from pi_sdk._stream.builder import MessageBuilder as MessageBuilder
    from pi_sdk._stream.contract import ApiProvider as ApiProvider
    from pi_sdk._stream.contract import CallFunction as CallFunction
    from pi_sdk._stream.contract import HttpCall as HttpCall
    from pi_sdk._stream.contract import StreamFunction as StreamFunction
    from pi_sdk._stream.httpx_errors import (
        connection_error_from_httpx as connection_error_from_httpx,
    )
    from pi_sdk._stream.provider import FetchContext as FetchContext
    from pi_sdk._stream.provider import FetchedModels as FetchedModels
    from pi_sdk._stream.provider import Provider as Provider
    from pi_sdk._stream.provider import ProviderAuth as ProviderAuth
    from pi_sdk._stream.provider_errors import ProviderError as ProviderError
    from pi_sdk._stream.provider_errors import body_excerpt as body_excerpt
    from pi_sdk._stream.provider_errors import connection_error as connection_error
    from pi_sdk._stream.provider_errors import describe_exception as describe_exception
    from pi_sdk._stream.provider_errors import http_error_message as http_error_message
    from pi_sdk._stream.provider_errors import malformed_event_error as malformed_event_error
    from pi_sdk._stream.provider_errors import retry_after_ms as retry_after_ms
    from pi_sdk._stream.sse import iter_sse as iter_sse
    from pi_sdk._stream.sse_json import parse_event as parse_event
    from pi_sdk._stream.wire_decoder import ByteDecoder as ByteDecoder
    from pi_sdk._stream.wire_decoder import HttpResponse as HttpResponse
    from pi_sdk._stream.wire_decoder import WireDecoder as WireDecoder
    from pi_sdk._wire.cost import load_models_json as load_models_json
    from pi_sdk._wire.ids import ToolCallIdNormalizer as ToolCallIdNormalizer
    from pi_sdk._wire.ids import fit_id as fit_id
    from pi_sdk._wire.ids import sanitize_tool_call_id as sanitize_tool_call_id
    from pi_sdk._wire.ids import short_hash as short_hash
    from pi_sdk._wire.output import OUTPUT_TOOL_NAME as OUTPUT_TOOL_NAME
    from pi_sdk._wire.transform import is_same_source as is_same_source
    from pi_sdk._wire.transform import signature_origin as signature_origin
    from pi_sdk._wire.transform import transform_messages as transform_messages
    from pi_sdk._wire.unicode import sanitize_surrogates as sanitize_surrogates

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, _DEPRECATED)
