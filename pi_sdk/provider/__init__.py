"""The provider kit: what a provider package is written on.

``from pi_sdk.provider import ...`` is the namespace for provider authors (the ``pi-sdk-<vendor>``
packages and third-party plugins that add a wire API). It holds the ``ApiProvider`` contract, the
event stream a stream function feeds, provider errors and the retry policy, HTTP body and
server-sent-event reading, the message builder and the HTTP stream runner every decoder is
written on, vendor client caching, tool-call id rules, incremental JSON for tool
arguments, and re-exports of the wire types and events a provider builds. Users import ``pi_sdk``;
everything under an underscore can change in any release (``docs/api.md``).
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk._activity import forwards_events as forwards_events
    from pi_sdk._calls import apply_payload_hooks as apply_payload_hooks
    from pi_sdk._calls import resolve_api_key as resolve_api_key
    from pi_sdk._event_stream import AssistantMessageEventStream as AssistantMessageEventStream
    from pi_sdk._event_stream import new_assistant_message as new_assistant_message
    from pi_sdk._ids import ToolCallIdNormalizer as ToolCallIdNormalizer
    from pi_sdk._ids import fit_id as fit_id
    from pi_sdk._ids import sanitize_tool_call_id as sanitize_tool_call_id
    from pi_sdk._ids import short_hash as short_hash
    from pi_sdk._output import OUTPUT_TOOL_NAME as OUTPUT_TOOL_NAME
    from pi_sdk._provider_api import ApiProvider as ApiProvider
    from pi_sdk._provider_api import RequestRecognizer as RequestRecognizer
    from pi_sdk._provider_api import StreamFunction as StreamFunction
    from pi_sdk._provider_errors import RETRYABLE_STATUS as RETRYABLE_STATUS
    from pi_sdk._provider_errors import ConnectionPhase as ConnectionPhase
    from pi_sdk._provider_errors import ProviderError as ProviderError
    from pi_sdk._provider_errors import body_excerpt as body_excerpt
    from pi_sdk._provider_errors import connection_error as connection_error
    from pi_sdk._provider_errors import describe_exception as describe_exception
    from pi_sdk._provider_errors import http_error_message as http_error_message
    from pi_sdk._provider_errors import malformed_event_error as malformed_event_error
    from pi_sdk._provider_errors import retry_after_ms as retry_after_ms
    from pi_sdk._redact import REDACTED as REDACTED
    from pi_sdk._redact import Redactor as Redactor
    from pi_sdk._redact import redact_text as redact_text
    from pi_sdk._registry import calculate_cost as calculate_cost
    from pi_sdk._registry import get_api_key as get_api_key
    from pi_sdk._registry import get_model as get_model
    from pi_sdk._registry import load_models_json as load_models_json
    from pi_sdk._transform import is_same_model as is_same_model
    from pi_sdk._transform import is_same_source as is_same_source
    from pi_sdk._transform import signature_origin as signature_origin
    from pi_sdk._transform import transform_messages as transform_messages
    from pi_sdk._unicode import sanitize_surrogates as sanitize_surrogates
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
    from pi_sdk.provider._base_url import resolve_base_url as resolve_base_url
    from pi_sdk.provider._builder import BlockKey as BlockKey
    from pi_sdk.provider._builder import Events as Events
    from pi_sdk.provider._builder import MessageBuilder as MessageBuilder
    from pi_sdk.provider._clients import ClientCache as ClientCache
    from pi_sdk.provider._clients import shared_in_thread as shared_in_thread
    from pi_sdk.provider._gc_tuning import tune_gc_for_streams as tune_gc_for_streams
    from pi_sdk.provider._http_call import TransportErrors as TransportErrors
    from pi_sdk.provider._http_call import httpx_transport_errors as httpx_transport_errors
    from pi_sdk.provider._http_call import stream_http_call as stream_http_call
    from pi_sdk.provider._http_pool import PooledTransport as PooledTransport
    from pi_sdk.provider._http_stream import HttpResponse as HttpResponse
    from pi_sdk.provider._http_stream import WireDecoder as WireDecoder
    from pi_sdk.provider._http_stream import (
        connection_error_from_httpx as connection_error_from_httpx,
    )
    from pi_sdk.provider._http_stream import is_json_response as is_json_response
    from pi_sdk.provider._http_stream import run_http_stream as run_http_stream
    from pi_sdk.provider._output_request import output_tool as output_tool
    from pi_sdk.provider._output_request import with_output_tool as with_output_tool
    from pi_sdk.provider._partial_json import IncrementalJsonParser as IncrementalJsonParser
    from pi_sdk.provider._partial_json import parse_partial_json as parse_partial_json
    from pi_sdk.provider._plugin_hooks import api_providers_hook as api_providers_hook
    from pi_sdk.provider._plugin_hooks import env_api_key_hook as env_api_key_hook
    from pi_sdk.provider._plugin_hooks import lazy_api as lazy_api
    from pi_sdk.provider._plugin_hooks import lazy_recognizer as lazy_recognizer
    from pi_sdk.provider._plugin_hooks import lazy_stream as lazy_stream
    from pi_sdk.provider._plugin_hooks import models_hook as models_hook
    from pi_sdk.provider._provider_options import (
        check_provider_options as check_provider_options,
    )
    from pi_sdk.provider._recorded_model import recorded_model as recorded_model
    from pi_sdk.provider._response_body import ResponseBody as ResponseBody
    from pi_sdk.provider._sse import ServerSentEvent as ServerSentEvent
    from pi_sdk.provider._sse import iter_sse as iter_sse
    from pi_sdk.provider._sse_json import parse_event as parse_event
    from pi_sdk.provider._vendor_import import import_vendor as import_vendor
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

__getattr__, __dir__ = _lazy_namespace(__name__)
