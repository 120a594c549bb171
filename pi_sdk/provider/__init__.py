"""The provider kit: what a provider package is written on.

``from pi_sdk.provider import ...`` is the namespace for provider authors (the ``pi-sdk-<vendor>``
packages and third-party plugins that add a wire API). It holds the ``ApiProvider`` contract, the
event stream a stream function feeds, provider errors and the retry policy, HTTP body and
server-sent-event reading, the message builder and the HTTP stream runner every decoder is
written on, vendor client caching, tool-call id rules, incremental JSON for tool
arguments, and re-exports of the wire types and events a provider builds. Users import ``pi_sdk``;
everything under an underscore can change in any release (``docs/api.md``).
"""

from pi_sdk._calls import apply_payload_hooks, resolve_api_key
from pi_sdk._event_stream import AssistantMessageEventStream, new_assistant_message
from pi_sdk._ids import ToolCallIdNormalizer, fit_id, sanitize_tool_call_id, short_hash
from pi_sdk._provider_api import ApiProvider, RequestRecognizer, StreamFunction
from pi_sdk._provider_errors import (
    RETRYABLE_STATUS,
    ConnectionPhase,
    ProviderError,
    body_excerpt,
    connection_error,
    describe_exception,
    http_error_message,
    malformed_event_error,
    retry_after_ms,
)
from pi_sdk._redact import REDACTED, Redactor, redact_text
from pi_sdk._registry import (
    calculate_cost,
    get_api_key,
    get_model,
    load_models_json,
)
from pi_sdk._transform import is_same_model, is_same_source, signature_origin, transform_messages
from pi_sdk._unicode import sanitize_surrogates
from pi_sdk.errors import ConfigurationError, ModelNotFoundError
from pi_sdk.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_sdk.options import ForeignReasoning, StreamOptions
from pi_sdk.plugins.hookspecs import hookimpl
from pi_sdk.provider._builder import BlockKey, Events, MessageBuilder
from pi_sdk.provider._clients import ClientCache, shared_in_thread
from pi_sdk.provider._http_stream import (
    HttpResponse,
    WireDecoder,
    connection_error_from_httpx,
    is_json_response,
    run_http_stream,
)
from pi_sdk.provider._partial_json import IncrementalJsonParser, parse_partial_json
from pi_sdk.provider._plugin_hooks import (
    api_providers_hook,
    env_api_key_hook,
    lazy_api,
    lazy_recognizer,
    lazy_stream,
    models_hook,
)
from pi_sdk.provider._response_body import ResponseBody
from pi_sdk.provider._sse import ServerSentEvent, iter_sse
from pi_sdk.provider._vendor_import import import_vendor
from pi_sdk.types import (
    AssistantMessage,
    Context,
    Cost,
    ImageContent,
    Message,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    now_ms,
)

__all__ = [
    "ApiProvider",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "BlockKey",
    "ClientCache",
    "ConfigurationError",
    "ConnectionPhase",
    "Context",
    "Cost",
    "DoneEvent",
    "ErrorEvent",
    "Events",
    "ForeignReasoning",
    "HttpResponse",
    "ImageContent",
    "IncrementalJsonParser",
    "Message",
    "MessageBuilder",
    "Model",
    "ModelNotFoundError",
    "ProviderError",
    "REDACTED",
    "RETRYABLE_STATUS",
    "Redactor",
    "RequestRecognizer",
    "ResponseBody",
    "ServerSentEvent",
    "StartEvent",
    "StopReason",
    "StreamFunction",
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
    "ToolCallIdNormalizer",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "WireDecoder",
    "api_providers_hook",
    "apply_payload_hooks",
    "body_excerpt",
    "calculate_cost",
    "connection_error",
    "connection_error_from_httpx",
    "describe_exception",
    "env_api_key_hook",
    "fit_id",
    "get_api_key",
    "get_model",
    "hookimpl",
    "http_error_message",
    "import_vendor",
    "is_json_response",
    "is_same_model",
    "is_same_source",
    "iter_sse",
    "lazy_api",
    "lazy_recognizer",
    "lazy_stream",
    "load_models_json",
    "malformed_event_error",
    "models_hook",
    "new_assistant_message",
    "now_ms",
    "parse_partial_json",
    "redact_text",
    "resolve_api_key",
    "retry_after_ms",
    "run_http_stream",
    "sanitize_surrogates",
    "sanitize_tool_call_id",
    "shared_in_thread",
    "short_hash",
    "signature_origin",
    "transform_messages",
]
