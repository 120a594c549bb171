"""The agent: pi-mono's ``packages/agent`` (the loop, tool execution, ``Agent``, sessions).

Applications normally reach these names through :mod:`pi_sdk` (``pi_sdk.Agent``, ``pi_sdk.tool``);
this namespace holds the same ones plus the callback type aliases (``ConvertToLlm``,
``TransformContext``, ``BeforeToolCall``...), ``FunctionTool``, and pi-coding-agent session files
(``import_pi_session``, ``export_pi_session``, ``PiSession`` and pi's message types), and
pi-agent-core's proxy and pi-ai 1.6's ``pi-messages``: the clients ``stream_proxy`` and
``pi_messages_provider``, the server ``proxy_app`` (docs/proxy.md).
Imported on first use.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "Agent": "pi_sdk._agent.agent",
    "AgentListener": "pi_sdk._agent.agent",
    "AgentState": "pi_sdk._agent.agent",
    "AgentEventStream": "pi_sdk._agent.loop",
    "agent_loop": "pi_sdk._agent.loop",
    "agent_loop_continue": "pi_sdk._agent.loop",
    "agent_message_from_dict": "pi_sdk._agent.messages",
    "default_convert_to_llm": "pi_sdk._agent.messages",
    "get_message_types": "pi_sdk._agent.messages",
    "register_message_type": "pi_sdk._agent.messages",
    "unregister_message_type": "pi_sdk._agent.messages",
    "PiSession": "pi_sdk._agent.pi_session",
    "export_pi_session": "pi_sdk._agent.pi_session",
    "import_pi_session": "pi_sdk._agent.pi_session",
    "RetryCallbacks": "pi_sdk._agent.retry",
    "retry_assistant_call": "pi_sdk._agent.retry",
    "AgentToolCallOutcome": "pi_sdk._agent.run_tool_call",
    "run_tool_call": "pi_sdk._agent.run_tool_call",
    "load_session": "pi_sdk._agent.session",
    "save_session": "pi_sdk._agent.session",
    "FunctionTool": "pi_sdk._agent.tools",
    "to_tool_result": "pi_sdk._agent.tools",
    "tool": "pi_sdk._agent.tools",
    "stream_proxy": "pi_sdk._serve.client",
    "pi_messages_provider": "pi_sdk._serve.pi_messages_client",
    "ProxyPolicy": "pi_sdk._serve.policy",
    "proxy_app": "pi_sdk._serve.server",
    "pi_messages_event_to_dict": "pi_sdk._serve.wire",
    "proxy_event_to_dict": "pi_sdk._serve.wire",
    "KeyUsage": "pi_sdk._serve.usage_store",
    "RateLimit": "pi_sdk._serve.usage_store",
    "UsageStore": "pi_sdk._serve.usage_store",
    "AfterToolCall": "pi_sdk._wire.agent_types",
    "AfterToolCallContext": "pi_sdk._wire.agent_types",
    "AfterToolCallResult": "pi_sdk._wire.agent_types",
    "AgentContext": "pi_sdk._wire.agent_types",
    "AgentEndEvent": "pi_sdk._wire.agent_types",
    "AgentEvent": "pi_sdk._wire.agent_types",
    "AgentMessage": "pi_sdk._wire.agent_types",
    "AgentStartEvent": "pi_sdk._wire.agent_types",
    "AgentStreamFn": "pi_sdk._wire.agent_types",
    "AgentThinkingLevel": "pi_sdk._wire.agent_types",
    "AgentTool": "pi_sdk._wire.agent_types",
    "AgentToolResult": "pi_sdk._wire.agent_types",
    "AssistantStream": "pi_sdk._wire.agent_types",
    "BeforeToolCall": "pi_sdk._wire.agent_types",
    "BeforeToolCallContext": "pi_sdk._wire.agent_types",
    "BeforeToolCallResult": "pi_sdk._wire.agent_types",
    "ConvertToLlm": "pi_sdk._wire.agent_types",
    "CustomAgentMessage": "pi_sdk._wire.agent_types",
    "GetApiKey": "pi_sdk._wire.agent_types",
    "MessageEndEvent": "pi_sdk._wire.agent_types",
    "MessageSource": "pi_sdk._wire.agent_types",
    "MessageStartEvent": "pi_sdk._wire.agent_types",
    "MessageUpdateEvent": "pi_sdk._wire.agent_types",
    "PrepareArguments": "pi_sdk._wire.agent_types",
    "QueueMode": "pi_sdk._wire.agent_types",
    "ToolExecute": "pi_sdk._wire.agent_types",
    "ToolExecutionEndEvent": "pi_sdk._wire.agent_types",
    "ToolExecutionMode": "pi_sdk._wire.agent_types",
    "ToolExecutionStartEvent": "pi_sdk._wire.agent_types",
    "ToolExecutionUpdateEvent": "pi_sdk._wire.agent_types",
    "ToolResultContent": "pi_sdk._wire.agent_types",
    "ToolSteering": "pi_sdk._wire.agent_types",
    "ToolUpdateCallback": "pi_sdk._wire.agent_types",
    "TransformContext": "pi_sdk._wire.agent_types",
    "TurnEndEvent": "pi_sdk._wire.agent_types",
    "TurnStartEvent": "pi_sdk._wire.agent_types",
    "agent_event_to_dict": "pi_sdk._wire.agent_types",
    "ContextEstimate": "pi_sdk._wire.estimate",
    "estimate_context_tokens": "pi_sdk._wire.estimate",
    "estimate_tokens": "pi_sdk._wire.estimate",
    "usage_tokens": "pi_sdk._wire.estimate",
    "AgentLoopConfig": "pi_sdk._wire.loop_config",
    "AgentLoopTurnUpdate": "pi_sdk._wire.loop_config",
    "AgentRequestUpdate": "pi_sdk._wire.loop_config",
    "AgentTurnContext": "pi_sdk._wire.loop_config",
    "AgentTurnDecision": "pi_sdk._wire.loop_config",
    "FinishTurn": "pi_sdk._wire.loop_config",
    "PrepareNextTurn": "pi_sdk._wire.loop_config",
    "PrepareRequest": "pi_sdk._wire.loop_config",
    "PrepareRequestContext": "pi_sdk._wire.loop_config",
    "ShouldStopAfterTurn": "pi_sdk._wire.loop_config",
    "ShouldStopAfterTurnContext": "pi_sdk._wire.loop_config",
    "is_recoverable_length": "pi_sdk._wire.overflow",
    "PiBranchSummary": "pi_sdk._wire.pi_messages",
    "PiCompactionSummary": "pi_sdk._wire.pi_messages",
    "PiCustomMessage": "pi_sdk._wire.pi_messages",
    "RetryPolicy": "pi_sdk._wire.retry_policy",
    "is_retryable_assistant_error": "pi_sdk._wire.retry_policy",
    "RunUsage": "pi_sdk._wire.usage_limits",
    "UsageLimits": "pi_sdk._wire.usage_limits",
}
"""Public name -> the module that defines it (a submodule names itself)."""

if _typing.TYPE_CHECKING:
    from pi_sdk._agent.agent import Agent as Agent
    from pi_sdk._agent.agent import AgentListener as AgentListener
    from pi_sdk._agent.agent import AgentState as AgentState
    from pi_sdk._agent.loop import AgentEventStream as AgentEventStream
    from pi_sdk._agent.loop import agent_loop as agent_loop
    from pi_sdk._agent.loop import agent_loop_continue as agent_loop_continue
    from pi_sdk._agent.messages import agent_message_from_dict as agent_message_from_dict
    from pi_sdk._agent.messages import default_convert_to_llm as default_convert_to_llm
    from pi_sdk._agent.messages import get_message_types as get_message_types
    from pi_sdk._agent.messages import register_message_type as register_message_type
    from pi_sdk._agent.messages import unregister_message_type as unregister_message_type
    from pi_sdk._agent.pi_session import PiSession as PiSession
    from pi_sdk._agent.pi_session import export_pi_session as export_pi_session
    from pi_sdk._agent.pi_session import import_pi_session as import_pi_session
    from pi_sdk._agent.retry import RetryCallbacks as RetryCallbacks
    from pi_sdk._agent.retry import retry_assistant_call as retry_assistant_call
    from pi_sdk._agent.run_tool_call import AgentToolCallOutcome as AgentToolCallOutcome
    from pi_sdk._agent.run_tool_call import run_tool_call as run_tool_call
    from pi_sdk._agent.session import load_session as load_session
    from pi_sdk._agent.session import save_session as save_session
    from pi_sdk._agent.tools import FunctionTool as FunctionTool
    from pi_sdk._agent.tools import to_tool_result as to_tool_result
    from pi_sdk._agent.tools import tool as tool
    from pi_sdk._serve.client import stream_proxy as stream_proxy
    from pi_sdk._serve.pi_messages_client import pi_messages_provider as pi_messages_provider
    from pi_sdk._serve.policy import ProxyPolicy as ProxyPolicy
    from pi_sdk._serve.server import proxy_app as proxy_app
    from pi_sdk._serve.usage_store import KeyUsage as KeyUsage
    from pi_sdk._serve.usage_store import RateLimit as RateLimit
    from pi_sdk._serve.usage_store import UsageStore as UsageStore
    from pi_sdk._serve.wire import pi_messages_event_to_dict as pi_messages_event_to_dict
    from pi_sdk._serve.wire import proxy_event_to_dict as proxy_event_to_dict
    from pi_sdk._wire.agent_types import AfterToolCall as AfterToolCall
    from pi_sdk._wire.agent_types import AfterToolCallContext as AfterToolCallContext
    from pi_sdk._wire.agent_types import AfterToolCallResult as AfterToolCallResult
    from pi_sdk._wire.agent_types import AgentContext as AgentContext
    from pi_sdk._wire.agent_types import AgentEndEvent as AgentEndEvent
    from pi_sdk._wire.agent_types import AgentEvent as AgentEvent
    from pi_sdk._wire.agent_types import AgentMessage as AgentMessage
    from pi_sdk._wire.agent_types import AgentStartEvent as AgentStartEvent
    from pi_sdk._wire.agent_types import AgentStreamFn as AgentStreamFn
    from pi_sdk._wire.agent_types import AgentThinkingLevel as AgentThinkingLevel
    from pi_sdk._wire.agent_types import AgentTool as AgentTool
    from pi_sdk._wire.agent_types import AgentToolResult as AgentToolResult
    from pi_sdk._wire.agent_types import AssistantStream as AssistantStream
    from pi_sdk._wire.agent_types import BeforeToolCall as BeforeToolCall
    from pi_sdk._wire.agent_types import BeforeToolCallContext as BeforeToolCallContext
    from pi_sdk._wire.agent_types import BeforeToolCallResult as BeforeToolCallResult
    from pi_sdk._wire.agent_types import ConvertToLlm as ConvertToLlm
    from pi_sdk._wire.agent_types import CustomAgentMessage as CustomAgentMessage
    from pi_sdk._wire.agent_types import GetApiKey as GetApiKey
    from pi_sdk._wire.agent_types import MessageEndEvent as MessageEndEvent
    from pi_sdk._wire.agent_types import MessageSource as MessageSource
    from pi_sdk._wire.agent_types import MessageStartEvent as MessageStartEvent
    from pi_sdk._wire.agent_types import MessageUpdateEvent as MessageUpdateEvent
    from pi_sdk._wire.agent_types import PrepareArguments as PrepareArguments
    from pi_sdk._wire.agent_types import QueueMode as QueueMode
    from pi_sdk._wire.agent_types import ToolExecute as ToolExecute
    from pi_sdk._wire.agent_types import ToolExecutionEndEvent as ToolExecutionEndEvent
    from pi_sdk._wire.agent_types import ToolExecutionMode as ToolExecutionMode
    from pi_sdk._wire.agent_types import ToolExecutionStartEvent as ToolExecutionStartEvent
    from pi_sdk._wire.agent_types import ToolExecutionUpdateEvent as ToolExecutionUpdateEvent
    from pi_sdk._wire.agent_types import ToolResultContent as ToolResultContent
    from pi_sdk._wire.agent_types import ToolSteering as ToolSteering
    from pi_sdk._wire.agent_types import ToolUpdateCallback as ToolUpdateCallback
    from pi_sdk._wire.agent_types import TransformContext as TransformContext
    from pi_sdk._wire.agent_types import TurnEndEvent as TurnEndEvent
    from pi_sdk._wire.agent_types import TurnStartEvent as TurnStartEvent
    from pi_sdk._wire.agent_types import agent_event_to_dict as agent_event_to_dict
    from pi_sdk._wire.estimate import ContextEstimate as ContextEstimate
    from pi_sdk._wire.estimate import estimate_context_tokens as estimate_context_tokens
    from pi_sdk._wire.estimate import estimate_tokens as estimate_tokens
    from pi_sdk._wire.estimate import usage_tokens as usage_tokens
    from pi_sdk._wire.loop_config import AgentLoopConfig as AgentLoopConfig
    from pi_sdk._wire.loop_config import AgentLoopTurnUpdate as AgentLoopTurnUpdate
    from pi_sdk._wire.loop_config import AgentRequestUpdate as AgentRequestUpdate
    from pi_sdk._wire.loop_config import AgentTurnContext as AgentTurnContext
    from pi_sdk._wire.loop_config import AgentTurnDecision as AgentTurnDecision
    from pi_sdk._wire.loop_config import FinishTurn as FinishTurn
    from pi_sdk._wire.loop_config import PrepareNextTurn as PrepareNextTurn
    from pi_sdk._wire.loop_config import PrepareRequest as PrepareRequest
    from pi_sdk._wire.loop_config import PrepareRequestContext as PrepareRequestContext
    from pi_sdk._wire.loop_config import ShouldStopAfterTurn as ShouldStopAfterTurn
    from pi_sdk._wire.loop_config import ShouldStopAfterTurnContext as ShouldStopAfterTurnContext
    from pi_sdk._wire.overflow import is_recoverable_length as is_recoverable_length
    from pi_sdk._wire.pi_messages import PiBranchSummary as PiBranchSummary
    from pi_sdk._wire.pi_messages import PiCompactionSummary as PiCompactionSummary
    from pi_sdk._wire.pi_messages import PiCustomMessage as PiCustomMessage
    from pi_sdk._wire.retry_policy import RetryPolicy as RetryPolicy
    from pi_sdk._wire.retry_policy import (
        is_retryable_assistant_error as is_retryable_assistant_error,
    )
    from pi_sdk._wire.usage_limits import RunUsage as RunUsage
    from pi_sdk._wire.usage_limits import UsageLimits as UsageLimits

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
