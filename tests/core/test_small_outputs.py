"""Small outputs, each whole: the text of an HTTP error with a code but no message
(``_stream/provider_errors.py``), the forced answer tool on a context in transcript form
(``_kit/output_request.py``) and the answer read back from that tool's call
(``_wire/output.py``), a stream awaited directly (``_stream/event_stream.py``), a tool's repr
and a terminating tool result in an agent event's JSON (``_wire/agent_types.py``), and a
payload hook that returns neither ``None`` nor a dict (``_models/hooks.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pi_sdk
from pi_sdk._kit.output_request import with_output_tool
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._stream.provider_errors import http_error_message
from pi_sdk._wire.agent_types import (
    AgentTool,
    AgentToolResult,
    ToolExecutionEndEvent,
    agent_event_to_dict,
)
from pi_sdk._wire.output import OUTPUT_TOOL_NAME, Output, parse_output
from pi_sdk.provider import ApiProvider
from pi_sdk.types import SystemMessage, ToolCall

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_an_http_error_with_a_code_and_a_body_but_no_message():
    assert http_error_message(502, code="upstream_error", body="<h1>Bad  gateway</h1>") == (
        "502 Bad Gateway: upstream_error: Bad gateway"
    )
    assert http_error_message(502, code="", body="down") == "502 Bad Gateway: down"
    assert http_error_message(502, code="upstream_error") == "502 Bad Gateway"
    assert http_error_message(599, message="odd") == "599: odd"


def test_the_answer_tool_joins_a_transcript_context_on_its_leading_system_message():
    spec = Output.of(SCHEMA)
    lead = SystemMessage(content="Be brief.", tools_added=[])
    context = pi_sdk.Context(messages=[lead, pi_sdk.UserMessage(content="Where?")])
    changed = with_output_tool(context, spec)
    first = changed.messages[0]
    assert isinstance(first, SystemMessage) and first is not lead
    assert [t.name for t in first.tools_added or []] == [OUTPUT_TOOL_NAME]
    assert changed.tools is None and changed.messages[1] is context.messages[1]
    assert lead.tools_added == [] and context.messages[0] is lead  # the input is unchanged
    alone = with_output_tool(pi_sdk.Context(messages=[lead]), spec)
    assert alone.messages[0].tools_added and len(alone.messages) == 1  # type: ignore[union-attr]
    plain = with_output_tool(pi_sdk.Context(system_prompt="s", messages=[lead]), spec)
    assert [t.name for t in plain.tools or []] == [OUTPUT_TOOL_NAME]
    assert plain.messages[0] is lead


def test_the_answer_is_read_from_the_answer_tools_arguments():
    message = pi_sdk.AssistantMessage(api="a", provider="p", model="m")
    message.content = [
        ToolCall(id="c1", name="other_tool", arguments={"city": "Rome"}),
        ToolCall(id="c2", name=OUTPUT_TOOL_NAME, arguments={"city": "Zürich"}),
    ]
    parsed = parse_output(message, SCHEMA)
    assert parsed.raw == '{"city": "Zürich"}'
    assert parsed.value == {"city": "Zürich"} and parsed.error is None


async def test_a_stream_awaited_directly_gives_its_final_message(plugin_manager: Any):
    async def reply(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        out = new_assistant_message(model)
        yield pi_sdk.StartEvent(partial=out)
        yield pi_sdk.DoneEvent(reason="stop", message=out)

    pi_sdk.register_api_provider(ApiProvider(api="await-api", stream=reply))
    model = pi_sdk.Model(id="m", api="await-api", provider="p")
    message = await pi_sdk.stream(model, pi_sdk.Context(messages=[]))
    assert message.stop_reason == "stop" and message.model == "m"


def test_a_tools_repr_and_a_terminating_result_in_json():
    tool = AgentTool(name="stop_here", description="Stops.", parameters={"type": "object"})
    assert repr(tool) == "AgentTool(name='stop_here')"
    result = AgentToolResult.text("done", terminate=True)
    event = ToolExecutionEndEvent(
        tool_call_id="c1", tool_name="stop_here", result=result, is_error=False
    )
    data = agent_event_to_dict(event)
    assert data["result"] == {
        "content": [{"type": "text", "text": "done"}],
        "details": None,
        "terminate": True,
    }
    plain = agent_event_to_dict(
        ToolExecutionEndEvent(
            tool_call_id="c1", tool_name="t", result=AgentToolResult.text("x"), is_error=False
        )
    )
    assert "terminate" not in plain["result"]


async def test_a_payload_hook_returning_something_else_ends_the_call_naming_it(
    plugin_manager: Any,
):
    async def reply(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        from pi_sdk._models.calls import apply_payload_hooks

        await apply_payload_hooks({"a": 1}, model, options)
        out = new_assistant_message(model)
        yield pi_sdk.DoneEvent(reason="stop", message=out)

    pi_sdk.register_api_provider(ApiProvider(api="hook-api", stream=reply))
    model = pi_sdk.Model(id="m", api="hook-api", provider="p")
    options = pi_sdk.StreamOptions(on_payload=lambda payload, model: ["not", "a", "dict"])
    message = await pi_sdk.complete(model, pi_sdk.Context(messages=[]), options)
    assert message.stop_reason == "error"
    assert message.error_message == (
        "StreamOptions.on_payload returned list; return None or a dict"
    )
