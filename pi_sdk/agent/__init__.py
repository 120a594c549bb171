"""The agent: pi-mono's ``packages/agent`` (the loop, tool execution, ``Agent``, sessions).

Applications normally reach these names through :mod:`pi_sdk` (``pi_sdk.Agent``, ``pi_sdk.tool``);
this namespace holds the same ones plus the callback type aliases (``ConvertToLlm``,
``TransformContext``, ``BeforeToolCall``...), ``FunctionTool``, and pi-coding-agent session files
(``import_pi_session``, ``export_pi_session``, ``PiSession`` and pi's message types), and
pi-agent-core's proxy: the client ``stream_proxy`` and the server ``proxy_app`` (docs/proxy.md).
Imported on first use.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk.agent._agent import Agent as Agent
    from pi_sdk.agent._agent import AgentListener as AgentListener
    from pi_sdk.agent._agent import AgentState as AgentState
    from pi_sdk.agent._estimate import ContextEstimate as ContextEstimate
    from pi_sdk.agent._estimate import estimate_context_tokens as estimate_context_tokens
    from pi_sdk.agent._estimate import estimate_tokens as estimate_tokens
    from pi_sdk.agent._estimate import usage_tokens as usage_tokens
    from pi_sdk.agent._loop import AgentEventStream as AgentEventStream
    from pi_sdk.agent._loop import agent_loop as agent_loop
    from pi_sdk.agent._loop import agent_loop_continue as agent_loop_continue
    from pi_sdk.agent._messages import agent_message_from_dict as agent_message_from_dict
    from pi_sdk.agent._messages import default_convert_to_llm as default_convert_to_llm
    from pi_sdk.agent._messages import get_message_types as get_message_types
    from pi_sdk.agent._messages import register_message_type as register_message_type
    from pi_sdk.agent._messages import unregister_message_type as unregister_message_type
    from pi_sdk.agent._pi_messages import PiBranchSummary as PiBranchSummary
    from pi_sdk.agent._pi_messages import PiCompactionSummary as PiCompactionSummary
    from pi_sdk.agent._pi_messages import PiCustomMessage as PiCustomMessage
    from pi_sdk.agent._pi_session import PiSession as PiSession
    from pi_sdk.agent._pi_session import export_pi_session as export_pi_session
    from pi_sdk.agent._pi_session import import_pi_session as import_pi_session
    from pi_sdk.agent._proxy_client import stream_proxy as stream_proxy
    from pi_sdk.agent._proxy_policy import ProxyPolicy as ProxyPolicy
    from pi_sdk.agent._proxy_server import proxy_app as proxy_app
    from pi_sdk.agent._proxy_wire import proxy_event_to_dict as proxy_event_to_dict
    from pi_sdk.agent._session import load_session as load_session
    from pi_sdk.agent._session import save_session as save_session
    from pi_sdk.agent._tools import FunctionTool as FunctionTool
    from pi_sdk.agent._tools import to_tool_result as to_tool_result
    from pi_sdk.agent._tools import tool as tool
    from pi_sdk.agent._types import AfterToolCall as AfterToolCall
    from pi_sdk.agent._types import AfterToolCallContext as AfterToolCallContext
    from pi_sdk.agent._types import AfterToolCallResult as AfterToolCallResult
    from pi_sdk.agent._types import AgentContext as AgentContext
    from pi_sdk.agent._types import AgentEndEvent as AgentEndEvent
    from pi_sdk.agent._types import AgentEvent as AgentEvent
    from pi_sdk.agent._types import AgentLoopConfig as AgentLoopConfig
    from pi_sdk.agent._types import AgentMessage as AgentMessage
    from pi_sdk.agent._types import AgentStartEvent as AgentStartEvent
    from pi_sdk.agent._types import AgentStreamFn as AgentStreamFn
    from pi_sdk.agent._types import AgentThinkingLevel as AgentThinkingLevel
    from pi_sdk.agent._types import AgentTool as AgentTool
    from pi_sdk.agent._types import AgentToolResult as AgentToolResult
    from pi_sdk.agent._types import AssistantStream as AssistantStream
    from pi_sdk.agent._types import BeforeToolCall as BeforeToolCall
    from pi_sdk.agent._types import BeforeToolCallContext as BeforeToolCallContext
    from pi_sdk.agent._types import BeforeToolCallResult as BeforeToolCallResult
    from pi_sdk.agent._types import ConvertToLlm as ConvertToLlm
    from pi_sdk.agent._types import CustomAgentMessage as CustomAgentMessage
    from pi_sdk.agent._types import GetApiKey as GetApiKey
    from pi_sdk.agent._types import MessageEndEvent as MessageEndEvent
    from pi_sdk.agent._types import MessageSource as MessageSource
    from pi_sdk.agent._types import MessageStartEvent as MessageStartEvent
    from pi_sdk.agent._types import MessageUpdateEvent as MessageUpdateEvent
    from pi_sdk.agent._types import PrepareArguments as PrepareArguments
    from pi_sdk.agent._types import QueueMode as QueueMode
    from pi_sdk.agent._types import ShouldStopAfterTurn as ShouldStopAfterTurn
    from pi_sdk.agent._types import ShouldStopAfterTurnContext as ShouldStopAfterTurnContext
    from pi_sdk.agent._types import ToolExecute as ToolExecute
    from pi_sdk.agent._types import ToolExecutionEndEvent as ToolExecutionEndEvent
    from pi_sdk.agent._types import ToolExecutionMode as ToolExecutionMode
    from pi_sdk.agent._types import ToolExecutionStartEvent as ToolExecutionStartEvent
    from pi_sdk.agent._types import ToolExecutionUpdateEvent as ToolExecutionUpdateEvent
    from pi_sdk.agent._types import ToolResultContent as ToolResultContent
    from pi_sdk.agent._types import ToolSteering as ToolSteering
    from pi_sdk.agent._types import ToolUpdateCallback as ToolUpdateCallback
    from pi_sdk.agent._types import TransformContext as TransformContext
    from pi_sdk.agent._types import TurnEndEvent as TurnEndEvent
    from pi_sdk.agent._types import TurnStartEvent as TurnStartEvent
    from pi_sdk.agent._types import agent_event_to_dict as agent_event_to_dict

__getattr__, __dir__ = _lazy_namespace(__name__)
