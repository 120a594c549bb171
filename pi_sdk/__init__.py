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

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk._abort import AbortController as AbortController
    from pi_sdk._abort import AbortSignal as AbortSignal
    from pi_sdk._calls import complete as complete
    from pi_sdk._calls import complete_sync as complete_sync
    from pi_sdk._calls import stream as stream
    from pi_sdk._event_stream import AssistantMessageEventStream as AssistantMessageEventStream
    from pi_sdk._overflow import is_context_overflow as is_context_overflow
    from pi_sdk._registry import get_api_provider as get_api_provider
    from pi_sdk._registry import get_api_providers as get_api_providers
    from pi_sdk._registry import get_model as get_model
    from pi_sdk._registry import get_models as get_models
    from pi_sdk._registry import get_providers as get_providers
    from pi_sdk._registry import register_api_provider as register_api_provider
    from pi_sdk._registry import register_model as register_model
    from pi_sdk._registry import unregister_api_providers as unregister_api_providers
    from pi_sdk.agent._agent import Agent as Agent
    from pi_sdk.agent._agent import AgentListener as AgentListener
    from pi_sdk.agent._agent import AgentState as AgentState
    from pi_sdk.agent._loop import AgentEventStream as AgentEventStream
    from pi_sdk.agent._loop import agent_loop as agent_loop
    from pi_sdk.agent._loop import agent_loop_continue as agent_loop_continue
    from pi_sdk.agent._messages import agent_message_from_dict as agent_message_from_dict
    from pi_sdk.agent._messages import default_convert_to_llm as default_convert_to_llm
    from pi_sdk.agent._messages import get_message_types as get_message_types
    from pi_sdk.agent._messages import register_message_type as register_message_type
    from pi_sdk.agent._messages import unregister_message_type as unregister_message_type
    from pi_sdk.agent._session import load_session as load_session
    from pi_sdk.agent._session import save_session as save_session
    from pi_sdk.agent._tools import to_tool_result as to_tool_result
    from pi_sdk.agent._tools import tool as tool
    from pi_sdk.agent._types import AfterToolCallContext as AfterToolCallContext
    from pi_sdk.agent._types import AfterToolCallResult as AfterToolCallResult
    from pi_sdk.agent._types import AgentContext as AgentContext
    from pi_sdk.agent._types import AgentEndEvent as AgentEndEvent
    from pi_sdk.agent._types import AgentEvent as AgentEvent
    from pi_sdk.agent._types import AgentLoopConfig as AgentLoopConfig
    from pi_sdk.agent._types import AgentMessage as AgentMessage
    from pi_sdk.agent._types import AgentStartEvent as AgentStartEvent
    from pi_sdk.agent._types import AgentThinkingLevel as AgentThinkingLevel
    from pi_sdk.agent._types import AgentTool as AgentTool
    from pi_sdk.agent._types import AgentToolResult as AgentToolResult
    from pi_sdk.agent._types import BeforeToolCallContext as BeforeToolCallContext
    from pi_sdk.agent._types import BeforeToolCallResult as BeforeToolCallResult
    from pi_sdk.agent._types import CustomAgentMessage as CustomAgentMessage
    from pi_sdk.agent._types import MessageEndEvent as MessageEndEvent
    from pi_sdk.agent._types import MessageStartEvent as MessageStartEvent
    from pi_sdk.agent._types import MessageUpdateEvent as MessageUpdateEvent
    from pi_sdk.agent._types import QueueMode as QueueMode
    from pi_sdk.agent._types import ToolExecutionEndEvent as ToolExecutionEndEvent
    from pi_sdk.agent._types import ToolExecutionMode as ToolExecutionMode
    from pi_sdk.agent._types import ToolExecutionStartEvent as ToolExecutionStartEvent
    from pi_sdk.agent._types import ToolExecutionUpdateEvent as ToolExecutionUpdateEvent
    from pi_sdk.agent._types import ToolUpdateCallback as ToolUpdateCallback
    from pi_sdk.agent._types import TurnEndEvent as TurnEndEvent
    from pi_sdk.agent._types import TurnStartEvent as TurnStartEvent
    from pi_sdk.agent._types import agent_event_to_dict as agent_event_to_dict
    from pi_sdk.errors import AbortedError as AbortedError
    from pi_sdk.errors import AgentBusyError as AgentBusyError
    from pi_sdk.errors import AssistantError as AssistantError
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
    from pi_sdk.types import AssistantMessage as AssistantMessage
    from pi_sdk.types import Context as Context
    from pi_sdk.types import Cost as Cost
    from pi_sdk.types import ImageContent as ImageContent
    from pi_sdk.types import Message as Message
    from pi_sdk.types import Model as Model
    from pi_sdk.types import ModelCost as ModelCost
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

__getattr__, __dir__ = _lazy_namespace(
    __name__,
    submodules=("agent", "errors", "events", "options", "plugins", "provider", "testing", "types"),
)
