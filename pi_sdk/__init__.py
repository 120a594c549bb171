"""pi-sdk: one streaming event protocol for every LLM vendor, an agent loop, and plugins.

A Python take on pi-mono's pi-ai and pi-agent-core. Provider packages (``pi-sdk-anthropic``,
``pi-sdk-openai``, ``pi-sdk-google``) register through the ``pi_sdk`` entry-point group; importing
``pi_sdk`` imports no vendor SDK.
"""

from typing import TYPE_CHECKING, Any

from pi_sdk._abort import AbortController, AbortSignal
from pi_sdk._calls import apply_payload_hooks, complete, complete_sync, resolve_api_key, stream
from pi_sdk._event_stream import AssistantMessageEventStream, new_assistant_message
from pi_sdk._ids import ToolCallIdNormalizer, fit_id, sanitize_tool_call_id, short_hash
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
from pi_sdk._transform import is_same_model, is_same_source, signature_origin, transform_messages
from pi_sdk._unicode import sanitize_surrogates
from pi_sdk.errors import (
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
    event_to_dict,
)
from pi_sdk.options import ForeignReasoning, StreamOptions
from pi_sdk.plugins.hookspecs import hookimpl
from pi_sdk.provider._clients import ClientCache, shared_in_thread
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

if TYPE_CHECKING:
    from pi_sdk.agent._agent import Agent, AgentListener, AgentState
    from pi_sdk.agent._loop import AgentEventStream, agent_loop, agent_loop_continue
    from pi_sdk.agent._messages import (
        AgentMessage,
        CustomAgentMessage,
        agent_message_from_dict,
        default_convert_to_llm,
        get_message_types,
        register_message_type,
        unregister_message_type,
    )
    from pi_sdk.agent._session import load_session, save_session
    from pi_sdk.agent._tools import AgentTool, to_tool_result, tool
    from pi_sdk.agent._types import (
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
    from pi_sdk.provider._partial_json import IncrementalJsonParser, parse_partial_json
    from pi_sdk.testing._scripted import ScriptedCall, ScriptedProvider, ScriptedReply


_AGENT_CORE = {
    "Agent": "agent._agent",
    "AgentListener": "agent._agent",
    "AgentState": "agent._agent",
    "AgentEventStream": "agent._loop",
    "agent_loop": "agent._loop",
    "agent_loop_continue": "agent._loop",
    "AfterToolCallContext": "agent._types",
    "AfterToolCallResult": "agent._types",
    "AgentContext": "agent._types",
    "AgentEndEvent": "agent._types",
    "AgentEvent": "agent._types",
    "AgentLoopConfig": "agent._types",
    "AgentStartEvent": "agent._types",
    "AgentThinkingLevel": "agent._types",
    "AgentToolResult": "agent._types",
    "BeforeToolCallContext": "agent._types",
    "BeforeToolCallResult": "agent._types",
    "MessageEndEvent": "agent._types",
    "MessageStartEvent": "agent._types",
    "MessageUpdateEvent": "agent._types",
    "QueueMode": "agent._types",
    "ToolExecutionEndEvent": "agent._types",
    "ToolExecutionMode": "agent._types",
    "ToolExecutionStartEvent": "agent._types",
    "ToolExecutionUpdateEvent": "agent._types",
    "ToolUpdateCallback": "agent._types",
    "TurnEndEvent": "agent._types",
    "TurnStartEvent": "agent._types",
    "agent_event_to_dict": "agent._types",
    "AgentMessage": "agent._messages",
    "CustomAgentMessage": "agent._messages",
    "agent_message_from_dict": "agent._messages",
    "default_convert_to_llm": "agent._messages",
    "get_message_types": "agent._messages",
    "register_message_type": "agent._messages",
    "unregister_message_type": "agent._messages",
    "ScriptedCall": "testing._scripted",
    "ScriptedProvider": "testing._scripted",
    "ScriptedReply": "testing._scripted",
    "AgentTool": "agent._tools",
    "to_tool_result": "agent._tools",
    "tool": "agent._tools",
}
"""Agent-core names, imported on first use so ``import pi_sdk`` stays cheap."""


def __getattr__(name: str) -> Any:
    # Loaded on first use: only providers that stream tool arguments need it.
    if name in ("IncrementalJsonParser", "parse_partial_json"):
        from pi_sdk.provider import _partial_json as partial_json

        return getattr(partial_json, name)
    if name in ("load_session", "save_session"):  # session files: loaded on first use
        from pi_sdk.agent import _session as session

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
