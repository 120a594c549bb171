"""Agent event JSON and tool definitions, rule by rule (issue 34).

:func:`agent_event_to_dict` writes every agent event in pi-mono's shape: its camelCase names, a
tool result's optional keys only when set, ``durationMs`` left out when the tool did not run.
:class:`AgentTool` fills its defaults (label, empty schema, arguments unchanged) and refuses
an ``execute`` it cannot run, naming the tool.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from pydantic import BaseModel, Field

from pi_sdk import AssistantMessage, TextContent, Usage, UserMessage
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.agent_types import (
    AgentEndEvent,
    AgentStartEvent,
    AgentTool,
    AgentToolResult,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
    agent_event_to_dict,
)

USER = UserMessage(content="hi", timestamp=5)
ASSISTANT = AssistantMessage(api="a", provider="p", model="m", timestamp=6)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (AgentStartEvent(), {"type": "agent_start"}),
        (TurnStartEvent(), {"type": "turn_start"}),
        (
            AgentEndEvent(messages=[USER]),
            {"type": "agent_end", "messages": [USER.model_dump(mode="json")]},
        ),
        (
            TurnEndEvent(message=ASSISTANT, tool_results=[]),
            {"type": "turn_end", "message": ASSISTANT.model_dump(mode="json"), "toolResults": []},
        ),
        (
            MessageStartEvent(message=USER),
            {"type": "message_start", "message": USER.model_dump(mode="json")},
        ),
        (
            MessageEndEvent(message=ASSISTANT),
            {"type": "message_end", "message": ASSISTANT.model_dump(mode="json")},
        ),
        (
            ToolExecutionStartEvent(tool_call_id="c1", tool_name="t", args={"a": [1]}),
            {
                "type": "tool_execution_start",
                "toolCallId": "c1",
                "toolName": "t",
                "args": {"a": [1]},
            },
        ),
        (
            ToolExecutionUpdateEvent(
                tool_call_id="c1", tool_name="t", args={}, partial_result=AgentToolResult.text("p")
            ),
            {
                "type": "tool_execution_update",
                "toolCallId": "c1",
                "toolName": "t",
                "args": {},
                "partialResult": {"content": [{"type": "text", "text": "p"}], "details": None},
            },
        ),
        (
            ToolExecutionEndEvent(
                tool_call_id="c1", tool_name="t", result=AgentToolResult(), is_error=False
            ),
            {
                "type": "tool_execution_end",
                "toolCallId": "c1",
                "toolName": "t",
                "result": {"content": [], "details": None},
                "isError": False,
            },
        ),
        (
            ToolExecutionEndEvent(
                tool_call_id="c1",
                tool_name="t",
                result=AgentToolResult(),
                is_error=True,
                duration_ms=0,
            ),
            {
                "type": "tool_execution_end",
                "toolCallId": "c1",
                "toolName": "t",
                "result": {"content": [], "details": None},
                "isError": True,
                "durationMs": 0,  # zero is a duration: only None is left out
            },
        ),
    ],
)
def test_every_agent_event_in_pi_monos_shape(event: Any, expected: dict[str, Any]) -> None:
    assert agent_event_to_dict(event) == expected


class _Detail(BaseModel):
    tool_call_id: str = Field(alias="toolCallId")


def test_a_tool_result_writes_its_optional_keys_only_when_set() -> None:
    result = AgentToolResult(
        content=[TextContent(text="x")],
        details={"when": _Detail(toolCallId="c"), "odd": object},
        is_error=True,
        terminate=True,
        structured_content={"n": 0},
        usage=Usage(input=3, output=4, total_tokens=7),
    )
    data = agent_event_to_dict(
        ToolExecutionEndEvent(tool_call_id="c", tool_name="t", result=result, is_error=True)
    )["result"]
    assert data["content"] == [{"type": "text", "text": "x"}]
    assert data["details"]["when"] == {"toolCallId": "c"}  # pydantic details: by alias
    assert data["details"]["odd"] == repr(object)  # not JSON: its repr
    assert data["isError"] is True and data["terminate"] is True
    assert data["structuredContent"] == {"n": 0}
    assert data["usage"]["input"] == 3 and data["usage"]["totalTokens"] == 7
    falsy = AgentToolResult(structured_content=0)
    plain = agent_event_to_dict(
        ToolExecutionEndEvent(tool_call_id="c", tool_name="t", result=falsy, is_error=False)
    )["result"]
    assert plain == {"content": [], "details": None, "structuredContent": 0}


def test_agent_tool_result_text_is_one_text_block() -> None:
    result = AgentToolResult.text("done", details={"k": 1}, terminate=True)
    assert result.content == [TextContent(text="done")]
    assert result.details == {"k": 1} and result.terminate is True and result.is_error is False
    assert AgentToolResult.text("x").terminate is False


def test_agent_tool_defaults() -> None:
    tool = AgentTool(name="look")
    assert tool.label == "look" and tool.description == ""
    assert tool.parameters == {"type": "object", "properties": {}}
    assert tool.args_model is None and tool.execution_mode is None
    args = {"a": 1}
    assert tool.prepare_arguments(args) is args
    assert repr(tool) == "AgentTool(name='look')"
    assert AgentTool(name="look", label="Look up").label == "Look up"
    wire = tool.to_tool()
    assert wire.name == "look" and tool.to_tool() is wire  # built once


class _Args(BaseModel):
    n: int


def test_a_pydantic_parameter_model_gives_the_schema_and_validated_instances() -> None:
    tool = AgentTool(name="count", parameters=_Args, prepare_arguments=lambda a: {"n": a["count"]})
    assert tool.args_model is _Args
    assert tool.parameters["properties"]["n"]["type"] == "integer"
    prepared = tool.prepare_arguments({"count": "3"})
    assert tool.validate_arguments(prepared) == _Args(n=3)


async def test_execute_without_an_implementation_or_with_a_sync_one_names_the_tool() -> None:
    signal = AbortSignal()
    with pytest.raises(NotImplementedError, match="tool 'bare' has no execute implementation"):
        await AgentTool(name="bare").execute("c", {}, signal, lambda _: None)

    def sync(call_id: str, args: Any, signal: AbortSignal, on_update: Any) -> Any:
        return "x"

    with pytest.raises(TypeError, match="tool 'sync': execute returned str, not an awaitable"):
        await AgentTool(name="sync", execute=sync).execute("c", {}, signal, lambda _: None)

    async def run(call_id: str, args: Any, signal: AbortSignal, on_update: Any) -> Any:
        return (call_id, args)

    assert await AgentTool(name="ok", execute=run).execute("c9", {"a": 1}, signal, print) == (
        "c9",
        {"a": 1},
    )


@pytest.mark.parametrize("member", ["role", "timestamp"])
def test_a_custom_message_s_role_and_timestamp_are_read_only_attributes(member: str) -> None:
    """``CustomAgentMessage`` declares attributes, not methods: a class that says it implements
    the protocol (and sets neither) reads a value from them, never a bound method, and the type
    checker and API reference read them as read-only attributes."""
    from pi_sdk import CustomAgentMessage

    assert isinstance(inspect.getattr_static(CustomAgentMessage, member), property)

    class Declared(CustomAgentMessage):
        pass

    assert getattr(Declared(), member) is None  # the protocol's own body, read as a value
    with pytest.raises(AttributeError):
        setattr(Declared(), member, "x")
