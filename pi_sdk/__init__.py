"""pi-sdk: one streaming event protocol for every LLM vendor, an agent loop, and plugins.

A Python take on pi-mono's pi-ai and pi-agent-core. This is the namespace for applications:
``stream`` / ``complete`` / ``complete_sync``, the model registry, the wire types and the twelve
stream events, ``Agent`` with its events and hook types, ``tool()`` / ``AgentTool``, sessions,
the errors, ``AbortController`` and ``hookimpl``. Provider authors import :mod:`pi_sdk.provider`,
hook-plugin authors :mod:`pi_sdk.plugins`, test authors :mod:`pi_sdk.testing`; a name with a
leading underscore anywhere can change in any release (``docs/api.md``).

Provider packages (``pi-sdk-anthropic``, ``pi-sdk-openai``, ``pi-sdk-google``) register through
the ``pi_sdk`` entry-point group. Every name is imported on first use, so ``import pi_sdk`` costs
next to nothing and imports no vendor SDK.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "tune_gc_for_streams": "pi_sdk._kit.gc_tuning",
    "complete": "pi_sdk._models.calls",
    "complete_sync": "pi_sdk._models.calls",
    "stream": "pi_sdk._models.calls",
    "AuthCheck": "pi_sdk._models.collection",
    "Models": "pi_sdk._models.collection",
    "FallbackPolicy": "pi_sdk._models.fallback",
    "TokenCount": "pi_sdk._models.count_tokens",
    "count_tokens": "pi_sdk._models.calls",
    "RateLimit": "pi_sdk._models.rate_limit",
    "RateLimiter": "pi_sdk._models.rate_limit",
    "default_models": "pi_sdk._models.default",
    "get_api_provider": "pi_sdk._models.default",
    "get_api_providers": "pi_sdk._models.default",
    "get_model": "pi_sdk._models.default",
    "get_models": "pi_sdk._models.default",
    "get_providers": "pi_sdk._models.default",
    "register_api_provider": "pi_sdk._models.default",
    "register_model": "pi_sdk._models.default",
    "register_provider": "pi_sdk._models.default",
    "unregister_api_providers": "pi_sdk._models.default",
    "FileModelsStore": "pi_sdk._models.file_store",
    "ModelsStore": "pi_sdk._models.refresh",
    "RefreshResult": "pi_sdk._models.refresh",
    "StoredModels": "pi_sdk._models.refresh",
    "AssistantMessageEventStream": "pi_sdk._stream.event_stream",
    "Provider": "pi_sdk._stream.provider",
    "ProviderAuth": "pi_sdk._stream.provider",
    "AbortController": "pi_sdk._wire.abort",
    "AbortSignal": "pi_sdk._wire.abort",
    "is_context_overflow": "pi_sdk._wire.overflow",
    "collapse_system_messages": "pi_sdk._wire.transcript",
    "current_system_prompt": "pi_sdk._wire.transcript",
    "current_tools": "pi_sdk._wire.transcript",
    "normalize_context": "pi_sdk._wire.transcript",
    "agent": "pi_sdk.agent",
    # The agent's own names come through its namespace, whose table says where each is defined.
    "Agent": "pi_sdk.agent",
    "AgentListener": "pi_sdk.agent",
    "AgentState": "pi_sdk.agent",
    "AgentEventStream": "pi_sdk.agent",
    "agent_loop": "pi_sdk.agent",
    "agent_loop_continue": "pi_sdk.agent",
    "agent_message_from_dict": "pi_sdk.agent",
    "default_convert_to_llm": "pi_sdk.agent",
    "get_message_types": "pi_sdk.agent",
    "register_message_type": "pi_sdk.agent",
    "unregister_message_type": "pi_sdk.agent",
    "load_session": "pi_sdk.agent",
    "save_session": "pi_sdk.agent",
    "to_tool_result": "pi_sdk.agent",
    "tool": "pi_sdk.agent",
    "AfterToolCallContext": "pi_sdk.agent",
    "AfterToolCallResult": "pi_sdk.agent",
    "AgentContext": "pi_sdk.agent",
    "AgentEndEvent": "pi_sdk.agent",
    "AgentEvent": "pi_sdk.agent",
    "AgentLoopConfig": "pi_sdk.agent",
    "AgentMessage": "pi_sdk.agent",
    "AgentStartEvent": "pi_sdk.agent",
    "AgentThinkingLevel": "pi_sdk.agent",
    "AgentTool": "pi_sdk.agent",
    "AgentToolResult": "pi_sdk.agent",
    "BeforeToolCallContext": "pi_sdk.agent",
    "BeforeToolCallResult": "pi_sdk.agent",
    "CustomAgentMessage": "pi_sdk.agent",
    "MessageEndEvent": "pi_sdk.agent",
    "MessageStartEvent": "pi_sdk.agent",
    "MessageUpdateEvent": "pi_sdk.agent",
    "QueueMode": "pi_sdk.agent",
    "ToolExecutionEndEvent": "pi_sdk.agent",
    "ToolExecutionMode": "pi_sdk.agent",
    "ToolExecutionStartEvent": "pi_sdk.agent",
    "ToolExecutionUpdateEvent": "pi_sdk.agent",
    "ToolUpdateCallback": "pi_sdk.agent",
    "TurnEndEvent": "pi_sdk.agent",
    "TurnStartEvent": "pi_sdk.agent",
    "agent_event_to_dict": "pi_sdk.agent",
    "AgentBusyError": "pi_sdk.errors",
    "ConfigurationError": "pi_sdk.errors",
    "ModelNotFoundError": "pi_sdk.errors",
    "PiSdkError": "pi_sdk.errors",
    "PluginLoadError": "pi_sdk.errors",
    "ProviderNotFoundError": "pi_sdk.errors",
    "SessionFileError": "pi_sdk.errors",
    "ToolArgumentsError": "pi_sdk.errors",
    "errors": "pi_sdk.errors",
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
    "event_to_dict": "pi_sdk.events",
    "events": "pi_sdk.events",
    "ForeignReasoning": "pi_sdk.options",
    "StreamOptions": "pi_sdk.options",
    "options": "pi_sdk.options",
    "plugins": "pi_sdk.plugins",
    "hookimpl": "pi_sdk.plugins.hookspecs",
    "provider": "pi_sdk.provider",
    "testing": "pi_sdk.testing",
    "AbortedError": "pi_sdk.types",
    "AssistantError": "pi_sdk.types",
    "AssistantMessage": "pi_sdk.types",
    "Context": "pi_sdk.types",
    "Cost": "pi_sdk.types",
    "Citation": "pi_sdk.types",
    "DocumentContent": "pi_sdk.types",
    "ServerToolCall": "pi_sdk.types",
    "ServerToolResult": "pi_sdk.types",
    "ImageContent": "pi_sdk.types",
    "Message": "pi_sdk.types",
    "Model": "pi_sdk.types",
    "ModelCost": "pi_sdk.types",
    "StopReason": "pi_sdk.types",
    "SystemMessage": "pi_sdk.types",
    "TextContent": "pi_sdk.types",
    "ThinkingContent": "pi_sdk.types",
    "ThinkingLevel": "pi_sdk.types",
    "Tool": "pi_sdk.types",
    "ToolCall": "pi_sdk.types",
    "ToolResultMessage": "pi_sdk.types",
    "Usage": "pi_sdk.types",
    "UserMessage": "pi_sdk.types",
    "now_ms": "pi_sdk.types",
    "types": "pi_sdk.types",
}
"""Public name -> the module that defines it (a submodule names itself), or for the agent's names
the agent namespace (:mod:`pi_sdk.agent`), which re-exports them from there."""

if _typing.TYPE_CHECKING:
    from pi_sdk import agent as agent
    from pi_sdk import errors as errors
    from pi_sdk import events as events
    from pi_sdk import options as options
    from pi_sdk import plugins as plugins
    from pi_sdk import provider as provider
    from pi_sdk import testing as testing
    from pi_sdk import types as types
    from pi_sdk._kit.gc_tuning import tune_gc_for_streams as tune_gc_for_streams
    from pi_sdk._models.calls import complete as complete
    from pi_sdk._models.calls import complete_sync as complete_sync
    from pi_sdk._models.calls import count_tokens as count_tokens
    from pi_sdk._models.calls import stream as stream
    from pi_sdk._models.collection import AuthCheck as AuthCheck
    from pi_sdk._models.collection import Models as Models
    from pi_sdk._models.count_tokens import TokenCount as TokenCount
    from pi_sdk._models.default import default_models as default_models
    from pi_sdk._models.default import get_api_provider as get_api_provider
    from pi_sdk._models.default import get_api_providers as get_api_providers
    from pi_sdk._models.default import get_model as get_model
    from pi_sdk._models.default import get_models as get_models
    from pi_sdk._models.default import get_providers as get_providers
    from pi_sdk._models.default import register_api_provider as register_api_provider
    from pi_sdk._models.default import register_model as register_model
    from pi_sdk._models.default import register_provider as register_provider
    from pi_sdk._models.default import unregister_api_providers as unregister_api_providers
    from pi_sdk._models.fallback import FallbackPolicy as FallbackPolicy
    from pi_sdk._models.file_store import FileModelsStore as FileModelsStore
    from pi_sdk._models.rate_limit import RateLimit as RateLimit
    from pi_sdk._models.rate_limit import RateLimiter as RateLimiter
    from pi_sdk._models.refresh import ModelsStore as ModelsStore
    from pi_sdk._models.refresh import RefreshResult as RefreshResult
    from pi_sdk._models.refresh import StoredModels as StoredModels
    from pi_sdk._stream.event_stream import (
        AssistantMessageEventStream as AssistantMessageEventStream,
    )
    from pi_sdk._stream.provider import Provider as Provider
    from pi_sdk._stream.provider import ProviderAuth as ProviderAuth
    from pi_sdk._wire.abort import AbortController as AbortController
    from pi_sdk._wire.abort import AbortSignal as AbortSignal
    from pi_sdk._wire.overflow import is_context_overflow as is_context_overflow
    from pi_sdk._wire.transcript import collapse_system_messages as collapse_system_messages
    from pi_sdk._wire.transcript import current_system_prompt as current_system_prompt
    from pi_sdk._wire.transcript import current_tools as current_tools
    from pi_sdk._wire.transcript import normalize_context as normalize_context
    from pi_sdk.agent import AfterToolCallContext as AfterToolCallContext
    from pi_sdk.agent import AfterToolCallResult as AfterToolCallResult
    from pi_sdk.agent import Agent as Agent
    from pi_sdk.agent import AgentContext as AgentContext
    from pi_sdk.agent import AgentEndEvent as AgentEndEvent
    from pi_sdk.agent import AgentEvent as AgentEvent
    from pi_sdk.agent import AgentEventStream as AgentEventStream
    from pi_sdk.agent import AgentListener as AgentListener
    from pi_sdk.agent import AgentLoopConfig as AgentLoopConfig
    from pi_sdk.agent import AgentMessage as AgentMessage
    from pi_sdk.agent import AgentStartEvent as AgentStartEvent
    from pi_sdk.agent import AgentState as AgentState
    from pi_sdk.agent import AgentThinkingLevel as AgentThinkingLevel
    from pi_sdk.agent import AgentTool as AgentTool
    from pi_sdk.agent import AgentToolResult as AgentToolResult
    from pi_sdk.agent import BeforeToolCallContext as BeforeToolCallContext
    from pi_sdk.agent import BeforeToolCallResult as BeforeToolCallResult
    from pi_sdk.agent import CustomAgentMessage as CustomAgentMessage
    from pi_sdk.agent import MessageEndEvent as MessageEndEvent
    from pi_sdk.agent import MessageStartEvent as MessageStartEvent
    from pi_sdk.agent import MessageUpdateEvent as MessageUpdateEvent
    from pi_sdk.agent import QueueMode as QueueMode
    from pi_sdk.agent import ToolExecutionEndEvent as ToolExecutionEndEvent
    from pi_sdk.agent import ToolExecutionMode as ToolExecutionMode
    from pi_sdk.agent import ToolExecutionStartEvent as ToolExecutionStartEvent
    from pi_sdk.agent import ToolExecutionUpdateEvent as ToolExecutionUpdateEvent
    from pi_sdk.agent import ToolUpdateCallback as ToolUpdateCallback
    from pi_sdk.agent import TurnEndEvent as TurnEndEvent
    from pi_sdk.agent import TurnStartEvent as TurnStartEvent
    from pi_sdk.agent import agent_event_to_dict as agent_event_to_dict
    from pi_sdk.agent import agent_loop as agent_loop
    from pi_sdk.agent import agent_loop_continue as agent_loop_continue
    from pi_sdk.agent import agent_message_from_dict as agent_message_from_dict
    from pi_sdk.agent import default_convert_to_llm as default_convert_to_llm
    from pi_sdk.agent import get_message_types as get_message_types
    from pi_sdk.agent import load_session as load_session
    from pi_sdk.agent import register_message_type as register_message_type
    from pi_sdk.agent import save_session as save_session
    from pi_sdk.agent import to_tool_result as to_tool_result
    from pi_sdk.agent import tool as tool
    from pi_sdk.agent import unregister_message_type as unregister_message_type
    from pi_sdk.errors import AgentBusyError as AgentBusyError
    from pi_sdk.errors import ConfigurationError as ConfigurationError
    from pi_sdk.errors import ModelNotFoundError as ModelNotFoundError
    from pi_sdk.errors import PiSdkError as PiSdkError
    from pi_sdk.errors import PluginLoadError as PluginLoadError
    from pi_sdk.errors import ProviderNotFoundError as ProviderNotFoundError
    from pi_sdk.errors import SessionFileError as SessionFileError
    from pi_sdk.errors import ToolArgumentsError as ToolArgumentsError
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
    from pi_sdk.events import event_to_dict as event_to_dict
    from pi_sdk.options import ForeignReasoning as ForeignReasoning
    from pi_sdk.options import StreamOptions as StreamOptions
    from pi_sdk.plugins.hookspecs import hookimpl as hookimpl
    from pi_sdk.types import AbortedError as AbortedError
    from pi_sdk.types import AssistantError as AssistantError
    from pi_sdk.types import AssistantMessage as AssistantMessage
    from pi_sdk.types import Citation as Citation
    from pi_sdk.types import Context as Context
    from pi_sdk.types import Cost as Cost
    from pi_sdk.types import DocumentContent as DocumentContent
    from pi_sdk.types import ImageContent as ImageContent
    from pi_sdk.types import Message as Message
    from pi_sdk.types import Model as Model
    from pi_sdk.types import ModelCost as ModelCost
    from pi_sdk.types import ServerToolCall as ServerToolCall
    from pi_sdk.types import ServerToolResult as ServerToolResult
    from pi_sdk.types import StopReason as StopReason
    from pi_sdk.types import SystemMessage as SystemMessage
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
