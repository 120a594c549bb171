"""pi-sdk: one streaming event protocol for every LLM vendor, an agent loop, and plugins.

A Python take on pi-mono's pi-ai and pi-agent-core. Provider packages (``pi-sdk-anthropic``,
``pi-sdk-openai``, ``pi-sdk-google``) register through the ``pi_sdk`` entry-point group; importing
``pi_sdk`` imports no vendor SDK.
"""

from typing import TYPE_CHECKING, Any

from .abort import AbortController, AbortSignal
from .calls import apply_payload_hooks, complete, complete_sync, resolve_api_key, stream
from .client_cache import ClientCache, shared_in_thread
from .errors import (
    AbortedError,
    AgentBusyError,
    AssistantError,
    ConfigurationError,
    ModelNotFoundError,
    PiSdkError,
    PluginLoadError,
    ProviderNotFoundError,
    SessionFileError,
    ToolArgumentsError,
)
from .event_stream import AssistantMessageEventStream, new_assistant_message
from .events import (
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
    event_to_dict,
)
from .hookspecs import hookimpl
from .options import ForeignReasoning, StreamOptions
from .provider_errors import (
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
from .redact import REDACTED, Redactor, redact_text
from .registry import (
    ApiProvider,
    StreamFunction,
    calculate_cost,
    get_api_key,
    get_api_provider,
    get_api_providers,
    get_model,
    get_models,
    get_providers,
    load_models_json,
    register_api_provider,
    register_model,
    unregister_api_providers,
)
from .response_body import ResponseBody
from .sse import ServerSentEvent, iter_sse
from .tool_call_ids import ToolCallIdNormalizer, fit_id, sanitize_tool_call_id, short_hash
from .transform import is_same_model, is_same_source, signature_origin, transform_messages
from .types import (
    AssistantMessage,
    Context,
    Cost,
    ImageContent,
    Message,
    Model,
    ModelCost,
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
from .unicode import sanitize_surrogates
from .vendor_import import import_vendor

if TYPE_CHECKING:
    from .agent import Agent, AgentListener, AgentState
    from .agent_types import (
        AfterToolCallContext,
        AfterToolCallResult,
        AgentContext,
        AgentEndEvent,
        AgentEvent,
        AgentLoopConfig,
        AgentStartEvent,
        AgentThinkingLevel,
        AgentToolResult,
        BeforeToolCallContext,
        BeforeToolCallResult,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        QueueMode,
        ToolExecutionEndEvent,
        ToolExecutionMode,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
        ToolUpdateCallback,
        TurnEndEvent,
        TurnStartEvent,
        agent_event_to_dict,
    )
    from .loop import AgentEventStream, agent_loop, agent_loop_continue
    from .messages import (
        AgentMessage,
        CustomAgentMessage,
        agent_message_from_dict,
        default_convert_to_llm,
        get_message_types,
        register_message_type,
        unregister_message_type,
    )
    from .partial_json import IncrementalJsonParser, parse_partial_json
    from .scripted import ScriptedCall, ScriptedProvider, ScriptedReply
    from .session import load_session, save_session
    from .tools import AgentTool, to_tool_result, tool


_AGENT_CORE = {
    "Agent": "agent",
    "AgentListener": "agent",
    "AgentState": "agent",
    "AgentEventStream": "loop",
    "agent_loop": "loop",
    "agent_loop_continue": "loop",
    "AfterToolCallContext": "agent_types",
    "AfterToolCallResult": "agent_types",
    "AgentContext": "agent_types",
    "AgentEndEvent": "agent_types",
    "AgentEvent": "agent_types",
    "AgentLoopConfig": "agent_types",
    "AgentStartEvent": "agent_types",
    "AgentThinkingLevel": "agent_types",
    "AgentToolResult": "agent_types",
    "BeforeToolCallContext": "agent_types",
    "BeforeToolCallResult": "agent_types",
    "MessageEndEvent": "agent_types",
    "MessageStartEvent": "agent_types",
    "MessageUpdateEvent": "agent_types",
    "QueueMode": "agent_types",
    "ToolExecutionEndEvent": "agent_types",
    "ToolExecutionMode": "agent_types",
    "ToolExecutionStartEvent": "agent_types",
    "ToolExecutionUpdateEvent": "agent_types",
    "ToolUpdateCallback": "agent_types",
    "TurnEndEvent": "agent_types",
    "TurnStartEvent": "agent_types",
    "agent_event_to_dict": "agent_types",
    "AgentMessage": "messages",
    "CustomAgentMessage": "messages",
    "agent_message_from_dict": "messages",
    "default_convert_to_llm": "messages",
    "get_message_types": "messages",
    "register_message_type": "messages",
    "unregister_message_type": "messages",
    "ScriptedCall": "scripted",
    "ScriptedProvider": "scripted",
    "ScriptedReply": "scripted",
    "AgentTool": "tools",
    "to_tool_result": "tools",
    "tool": "tools",
}
"""Agent-core names, imported on first use so ``import pi_sdk`` stays cheap."""


def __getattr__(name: str) -> Any:
    # Loaded on first use: only providers that stream tool arguments need it.
    if name in ("IncrementalJsonParser", "parse_partial_json"):
        from . import partial_json

        return getattr(partial_json, name)
    if name in ("load_session", "save_session"):  # session files: loaded on first use
        from . import session

        return getattr(session, name)
    if name in _AGENT_CORE:
        import importlib

        return getattr(importlib.import_module(f".{_AGENT_CORE[name]}", __name__), name)
    raise AttributeError(f"module 'pi_sdk' has no attribute {name!r}")


__all__ = [
    "AbortController",
    "AbortSignal",
    "AbortedError",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentBusyError",
    "AgentContext",
    "AgentEndEvent",
    "AgentEvent",
    "AgentEventStream",
    "AgentListener",
    "AgentLoopConfig",
    "AgentMessage",
    "AgentStartEvent",
    "AgentState",
    "AgentThinkingLevel",
    "AgentTool",
    "AgentToolResult",
    "ApiProvider",
    "AssistantError",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "ClientCache",
    "ConfigurationError",
    "ConnectionPhase",
    "Context",
    "Cost",
    "CustomAgentMessage",
    "DoneEvent",
    "ErrorEvent",
    "ForeignReasoning",
    "ImageContent",
    "IncrementalJsonParser",
    "Message",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "Model",
    "ModelCost",
    "ModelNotFoundError",
    "PiSdkError",
    "PluginLoadError",
    "ProviderError",
    "ProviderNotFoundError",
    "QueueMode",
    "REDACTED",
    "RETRYABLE_STATUS",
    "Redactor",
    "ResponseBody",
    "ScriptedCall",
    "ScriptedProvider",
    "ScriptedReply",
    "ServerSentEvent",
    "SessionFileError",
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
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallIdNormalizer",
    "ToolCallStartEvent",
    "ToolExecutionEndEvent",
    "ToolExecutionMode",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "ToolResultMessage",
    "ToolUpdateCallback",
    "TurnEndEvent",
    "TurnStartEvent",
    "Usage",
    "UserMessage",
    "agent_event_to_dict",
    "agent_loop",
    "agent_loop_continue",
    "agent_message_from_dict",
    "apply_payload_hooks",
    "body_excerpt",
    "calculate_cost",
    "complete",
    "complete_sync",
    "connection_error",
    "default_convert_to_llm",
    "describe_exception",
    "event_to_dict",
    "fit_id",
    "get_api_key",
    "get_api_provider",
    "get_api_providers",
    "get_message_types",
    "get_model",
    "get_models",
    "get_providers",
    "hookimpl",
    "http_error_message",
    "import_vendor",
    "is_same_model",
    "is_same_source",
    "iter_sse",
    "load_models_json",
    "load_session",
    "malformed_event_error",
    "new_assistant_message",
    "now_ms",
    "parse_partial_json",
    "redact_text",
    "register_api_provider",
    "register_message_type",
    "register_model",
    "resolve_api_key",
    "retry_after_ms",
    "sanitize_surrogates",
    "sanitize_tool_call_id",
    "save_session",
    "shared_in_thread",
    "short_hash",
    "signature_origin",
    "stream",
    "to_tool_result",
    "tool",
    "transform_messages",
    "unregister_api_providers",
    "unregister_message_type",
]
