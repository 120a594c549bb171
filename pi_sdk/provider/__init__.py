"""The provider kit: what a provider package is written on.

``from pi_sdk.provider import ...`` is the namespace for provider authors (the ``pi-sdk-<vendor>``
packages and third-party plugins that add a wire API). It holds the ``ApiProvider`` contract and
the plan of an HTTP call (``HttpCall``) whose reply the core reads, the decoder protocols and the
message builder every decoder is written on, provider errors and the retry policy, HTTP body and
server-sent-event reading for a stream function that reads its reply itself, vendor client
caching, tool-call id rules, incremental JSON for tool arguments, and re-exports of the wire
types and events a provider builds. Users import ``pi_sdk``; everything under an underscore can
change in any release (``docs/api.md``).
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "resolve_base_url": "pi_sdk._kit.base_url",
    "ClientCache": "pi_sdk._kit.clients",
    "shared_in_thread": "pi_sdk._kit.clients",
    "tune_gc_for_streams": "pi_sdk._kit.gc_tuning",
    "PooledTransport": "pi_sdk._kit.http_pool",
    "output_tool": "pi_sdk._kit.output_request",
    "with_output_tool": "pi_sdk._kit.output_request",
    "api_providers_hook": "pi_sdk._kit.plugin_hooks",
    "env_api_key_hook": "pi_sdk._kit.plugin_hooks",
    "lazy_api": "pi_sdk._kit.plugin_hooks",
    "lazy_call": "pi_sdk._kit.plugin_hooks",
    "lazy_recognizer": "pi_sdk._kit.plugin_hooks",
    "lazy_stream": "pi_sdk._kit.plugin_hooks",
    "models_hook": "pi_sdk._kit.plugin_hooks",
    "check_provider_options": "pi_sdk._kit.provider_options",
    "recorded_model": "pi_sdk._kit.recorded_model",
    "import_vendor": "pi_sdk._kit.vendor_import",
    "apply_payload_hooks": "pi_sdk._models.calls",
    "resolve_api_key": "pi_sdk._models.calls",
    "get_api_key": "pi_sdk._models.registry",
    "get_model": "pi_sdk._models.registry",
    "hookimpl": "pi_sdk.plugins.hookspecs",
    "BlockKey": "pi_sdk._stream.builder",
    "Events": "pi_sdk._stream.builder",
    "MessageBuilder": "pi_sdk._stream.builder",
    "ApiProvider": "pi_sdk._stream.contract",
    "CallFunction": "pi_sdk._stream.contract",
    "HttpCall": "pi_sdk._stream.contract",
    "RequestRecognizer": "pi_sdk._stream.contract",
    "StreamFunction": "pi_sdk._stream.contract",
    "TransportErrors": "pi_sdk._stream.contract",
    "AssistantMessageEventStream": "pi_sdk._stream.event_stream",
    "new_assistant_message": "pi_sdk._stream.assistant_message",
    "connection_error_from_httpx": "pi_sdk._stream.httpx_errors",
    "httpx_transport_errors": "pi_sdk._stream.httpx_errors",
    "IncrementalJsonParser": "pi_sdk._stream.partial_json",
    "parse_partial_json": "pi_sdk._stream.partial_json",
    "ConnectionPhase": "pi_sdk._stream.provider_errors",
    "ProviderError": "pi_sdk._stream.provider_errors",
    "RETRYABLE_STATUS": "pi_sdk._stream.provider_errors",
    "body_excerpt": "pi_sdk._stream.provider_errors",
    "connection_error": "pi_sdk._stream.provider_errors",
    "describe_exception": "pi_sdk._stream.provider_errors",
    "http_error_message": "pi_sdk._stream.provider_errors",
    "malformed_event_error": "pi_sdk._stream.provider_errors",
    "retry_after_ms": "pi_sdk._stream.provider_errors",
    "ResponseBody": "pi_sdk._stream.response_body",
    "ServerSentEvent": "pi_sdk._stream.sse",
    "iter_sse": "pi_sdk._stream.sse",
    "parse_event": "pi_sdk._stream.sse_json",
    "ByteDecoder": "pi_sdk._stream.wire_decoder",
    "HttpResponse": "pi_sdk._stream.wire_decoder",
    "WireDecoder": "pi_sdk._stream.wire_decoder",
    "is_json_response": "pi_sdk._stream.wire_decoder",
    "calculate_cost": "pi_sdk._wire.cost",
    "load_models_json": "pi_sdk._wire.cost",
    "ConfigurationError": "pi_sdk.errors",
    "ModelNotFoundError": "pi_sdk.errors",
    "AssistantMessageEvent": "pi_sdk.events",
    "DoneEvent": "pi_sdk.events",
    "ErrorEvent": "pi_sdk.events",
    "StartEvent": "pi_sdk.events",
    "TextDeltaEvent": "pi_sdk.events",
    "TextEndEvent": "pi_sdk.events",
    "TextStartEvent": "pi_sdk.events",
    "ThinkingDeltaEvent": "pi_sdk.events",
    "ThinkingEndEvent": "pi_sdk.events",
    "ThinkingStartEvent": "pi_sdk.events",
    "ToolCallDeltaEvent": "pi_sdk.events",
    "ToolCallEndEvent": "pi_sdk.events",
    "ToolCallStartEvent": "pi_sdk.events",
    "ToolCallIdNormalizer": "pi_sdk._wire.ids",
    "fit_id": "pi_sdk._wire.ids",
    "sanitize_tool_call_id": "pi_sdk._wire.ids",
    "short_hash": "pi_sdk._wire.ids",
    "ForeignReasoning": "pi_sdk.options",
    "Output": "pi_sdk.options",
    "StreamOptions": "pi_sdk.options",
    "OUTPUT_TOOL_NAME": "pi_sdk._wire.output",
    "REDACTED": "pi_sdk._wire.redact",
    "Redactor": "pi_sdk._wire.redact",
    "redact_text": "pi_sdk._wire.redact",
    "is_same_model": "pi_sdk._wire.transform",
    "is_same_source": "pi_sdk._wire.transform",
    "signature_origin": "pi_sdk._wire.transform",
    "transform_messages": "pi_sdk._wire.transform",
    "AssistantMessage": "pi_sdk.types",
    "Context": "pi_sdk.types",
    "Cost": "pi_sdk.types",
    "ImageContent": "pi_sdk.types",
    "Message": "pi_sdk.types",
    "Model": "pi_sdk.types",
    "StopReason": "pi_sdk.types",
    "TextContent": "pi_sdk.types",
    "ThinkingContent": "pi_sdk.types",
    "ThinkingLevel": "pi_sdk.types",
    "Tool": "pi_sdk.types",
    "ToolCall": "pi_sdk.types",
    "ToolResultMessage": "pi_sdk.types",
    "Usage": "pi_sdk.types",
    "UserMessage": "pi_sdk.types",
    "now_ms": "pi_sdk.types",
    "sanitize_surrogates": "pi_sdk._wire.unicode",
}
"""Public name -> the module that defines it (a submodule names itself)."""

if _typing.TYPE_CHECKING:
    from pi_sdk._kit.base_url import resolve_base_url as resolve_base_url
    from pi_sdk._kit.clients import ClientCache as ClientCache
    from pi_sdk._kit.clients import shared_in_thread as shared_in_thread
    from pi_sdk._kit.gc_tuning import tune_gc_for_streams as tune_gc_for_streams
    from pi_sdk._kit.http_pool import PooledTransport as PooledTransport
    from pi_sdk._kit.output_request import output_tool as output_tool
    from pi_sdk._kit.output_request import with_output_tool as with_output_tool
    from pi_sdk._kit.plugin_hooks import api_providers_hook as api_providers_hook
    from pi_sdk._kit.plugin_hooks import env_api_key_hook as env_api_key_hook
    from pi_sdk._kit.plugin_hooks import lazy_api as lazy_api
    from pi_sdk._kit.plugin_hooks import lazy_call as lazy_call
    from pi_sdk._kit.plugin_hooks import lazy_recognizer as lazy_recognizer
    from pi_sdk._kit.plugin_hooks import lazy_stream as lazy_stream
    from pi_sdk._kit.plugin_hooks import models_hook as models_hook
    from pi_sdk._kit.provider_options import check_provider_options as check_provider_options
    from pi_sdk._kit.recorded_model import recorded_model as recorded_model
    from pi_sdk._kit.vendor_import import import_vendor as import_vendor
    from pi_sdk._models.calls import apply_payload_hooks as apply_payload_hooks
    from pi_sdk._models.calls import resolve_api_key as resolve_api_key
    from pi_sdk._models.registry import get_api_key as get_api_key
    from pi_sdk._models.registry import get_model as get_model
    from pi_sdk._stream.assistant_message import new_assistant_message as new_assistant_message
    from pi_sdk._stream.builder import BlockKey as BlockKey
    from pi_sdk._stream.builder import Events as Events
    from pi_sdk._stream.builder import MessageBuilder as MessageBuilder
    from pi_sdk._stream.contract import ApiProvider as ApiProvider
    from pi_sdk._stream.contract import CallFunction as CallFunction
    from pi_sdk._stream.contract import HttpCall as HttpCall
    from pi_sdk._stream.contract import RequestRecognizer as RequestRecognizer
    from pi_sdk._stream.contract import StreamFunction as StreamFunction
    from pi_sdk._stream.contract import TransportErrors as TransportErrors
    from pi_sdk._stream.event_stream import (
        AssistantMessageEventStream as AssistantMessageEventStream,
    )
    from pi_sdk._stream.httpx_errors import (
        connection_error_from_httpx as connection_error_from_httpx,
    )
    from pi_sdk._stream.httpx_errors import httpx_transport_errors as httpx_transport_errors
    from pi_sdk._stream.partial_json import IncrementalJsonParser as IncrementalJsonParser
    from pi_sdk._stream.partial_json import parse_partial_json as parse_partial_json
    from pi_sdk._stream.provider_errors import RETRYABLE_STATUS as RETRYABLE_STATUS
    from pi_sdk._stream.provider_errors import ConnectionPhase as ConnectionPhase
    from pi_sdk._stream.provider_errors import ProviderError as ProviderError
    from pi_sdk._stream.provider_errors import body_excerpt as body_excerpt
    from pi_sdk._stream.provider_errors import connection_error as connection_error
    from pi_sdk._stream.provider_errors import describe_exception as describe_exception
    from pi_sdk._stream.provider_errors import http_error_message as http_error_message
    from pi_sdk._stream.provider_errors import malformed_event_error as malformed_event_error
    from pi_sdk._stream.provider_errors import retry_after_ms as retry_after_ms
    from pi_sdk._stream.response_body import ResponseBody as ResponseBody
    from pi_sdk._stream.sse import ServerSentEvent as ServerSentEvent
    from pi_sdk._stream.sse import iter_sse as iter_sse
    from pi_sdk._stream.sse_json import parse_event as parse_event
    from pi_sdk._stream.wire_decoder import ByteDecoder as ByteDecoder
    from pi_sdk._stream.wire_decoder import HttpResponse as HttpResponse
    from pi_sdk._stream.wire_decoder import WireDecoder as WireDecoder
    from pi_sdk._stream.wire_decoder import is_json_response as is_json_response
    from pi_sdk._wire.cost import calculate_cost as calculate_cost
    from pi_sdk._wire.cost import load_models_json as load_models_json
    from pi_sdk._wire.ids import ToolCallIdNormalizer as ToolCallIdNormalizer
    from pi_sdk._wire.ids import fit_id as fit_id
    from pi_sdk._wire.ids import sanitize_tool_call_id as sanitize_tool_call_id
    from pi_sdk._wire.ids import short_hash as short_hash
    from pi_sdk._wire.output import OUTPUT_TOOL_NAME as OUTPUT_TOOL_NAME
    from pi_sdk._wire.redact import REDACTED as REDACTED
    from pi_sdk._wire.redact import Redactor as Redactor
    from pi_sdk._wire.redact import redact_text as redact_text
    from pi_sdk._wire.transform import is_same_model as is_same_model
    from pi_sdk._wire.transform import is_same_source as is_same_source
    from pi_sdk._wire.transform import signature_origin as signature_origin
    from pi_sdk._wire.transform import transform_messages as transform_messages
    from pi_sdk._wire.unicode import sanitize_surrogates as sanitize_surrogates
    from pi_sdk.errors import ConfigurationError as ConfigurationError
    from pi_sdk.errors import ModelNotFoundError as ModelNotFoundError
    from pi_sdk.events import AssistantMessageEvent as AssistantMessageEvent
    from pi_sdk.events import DoneEvent as DoneEvent
    from pi_sdk.events import ErrorEvent as ErrorEvent
    from pi_sdk.events import StartEvent as StartEvent
    from pi_sdk.events import TextDeltaEvent as TextDeltaEvent
    from pi_sdk.events import TextEndEvent as TextEndEvent
    from pi_sdk.events import TextStartEvent as TextStartEvent
    from pi_sdk.events import ThinkingDeltaEvent as ThinkingDeltaEvent
    from pi_sdk.events import ThinkingEndEvent as ThinkingEndEvent
    from pi_sdk.events import ThinkingStartEvent as ThinkingStartEvent
    from pi_sdk.events import ToolCallDeltaEvent as ToolCallDeltaEvent
    from pi_sdk.events import ToolCallEndEvent as ToolCallEndEvent
    from pi_sdk.events import ToolCallStartEvent as ToolCallStartEvent
    from pi_sdk.options import ForeignReasoning as ForeignReasoning
    from pi_sdk.options import Output as Output
    from pi_sdk.options import StreamOptions as StreamOptions
    from pi_sdk.plugins.hookspecs import hookimpl as hookimpl
    from pi_sdk.types import AssistantMessage as AssistantMessage
    from pi_sdk.types import Context as Context
    from pi_sdk.types import Cost as Cost
    from pi_sdk.types import ImageContent as ImageContent
    from pi_sdk.types import Message as Message
    from pi_sdk.types import Model as Model
    from pi_sdk.types import StopReason as StopReason
    from pi_sdk.types import TextContent as TextContent
    from pi_sdk.types import ThinkingContent as ThinkingContent
    from pi_sdk.types import ThinkingLevel as ThinkingLevel
    from pi_sdk.types import Tool as Tool
    from pi_sdk.types import ToolCall as ToolCall
    from pi_sdk.types import ToolResultMessage as ToolResultMessage
    from pi_sdk.types import Usage as Usage
    from pi_sdk.types import UserMessage as UserMessage
    from pi_sdk.types import now_ms as now_ms

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
