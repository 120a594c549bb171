"""pi 1.6's message shapes load, typed, and dump back to pi's JSON (issue 27, item 2).

``pi16/messages.json`` was written by the real ``@earendil-works/pi-ai`` / ``pi-agent-core``
1.6.0 under Node 22 (``tests/node/pi16_messages.mjs``): an agent run on pi's faux provider, a
partial (``pending``), a deferred reply, a tool call with ``argumentsError``, messages built in
the documented 1.6 shapes for the fields no faux path writes, and the answers of pi's own
``getSupportedThinkingLevels`` / ``clampThinkingLevel`` / ``calculateCost`` on tables of cases.
Where Node 22 and the packages are here (``npm ci --prefix tests/node``), every test also runs on
what pi writes now, and pi's ``validateToolArguments`` judges a malformed call pi-sdk wrote;
elsewhere those parts skip with one message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _support.node22 import needs_pi16, run_mjs
from pydantic import TypeAdapter

from pi_sdk._wire.cost import calculate_cost
from pi_sdk._wire.invalid_arguments import has_invalid_arguments, invalid_arguments_text
from pi_sdk.provider import transform_messages
from pi_sdk.types import (
    AssistantMessage,
    DeferredHandle,
    Message,
    Model,
    NestedToolCalls,
    ToolCall,
    ToolResultMessage,
    Usage,
    WireModel,
)

FIXTURE = Path(__file__).parent / "pi16" / "messages.json"
MESSAGES: TypeAdapter[Any] = TypeAdapter(Message)


@pytest.fixture(scope="module", params=["committed", pytest.param("written-now", marks=needs_pi16)])
def pi(request: pytest.FixtureRequest) -> dict[str, Any]:
    """What pi 1.6 wrote: the committed file, or a run of the script now."""
    if request.param == "committed":
        return json.loads(FIXTURE.read_text("utf-8"))
    return run_mjs("pi16_messages.mjs")


def messages(pi: dict[str, Any]) -> list[dict[str, Any]]:
    shapes = pi["shapes"]
    return [
        *pi["transcript"],
        pi["pending"],
        pi["deferred"],
        shapes["assistant"],
        shapes["toolResult"],
    ]


def no_extras(model: Any) -> None:
    """Every field of ``model`` (and of the wire objects in it) is typed: nothing left as extra."""
    assert model.model_extra is None, (type(model).__name__, model.model_extra)
    for value in vars(model).values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, WireModel):
                no_extras(item)


def test_every_message_round_trips_to_pi_s_json_with_every_field_typed(pi: dict[str, Any]) -> None:
    for data in messages(pi):
        loaded = MESSAGES.validate_python(data)
        assert loaded.model_dump(mode="json") == data
        assert json.loads(loaded.model_dump_json()) == data
        no_extras(loaded)


def test_the_agent_run_keeps_pi_s_levels_durations_and_tool_usage(pi: dict[str, Any]) -> None:
    user, call, result, answer = (MESSAGES.validate_python(m) for m in pi["transcript"])
    assert isinstance(call, AssistantMessage) and isinstance(answer, AssistantMessage)
    assert call.thinking_level == answer.thinking_level == "high"
    assert isinstance(call.duration_ms, int) and call.duration_ms >= 0
    assert call.stop_reason == "toolUse" and answer.text == "It is sunny in Paris."
    assert isinstance(result, ToolResultMessage) and isinstance(result.usage, Usage)
    assert (result.usage.input, result.usage.output, result.usage.cost.total) == (120, 30, 0.00081)
    assert isinstance(result.duration_ms, int) and result.details == {
        "city": "Paris",
        "source": "faux",
    }
    assert user.role == "user"


def test_pending_and_deferred_replies(pi: dict[str, Any]) -> None:
    pending = AssistantMessage.model_validate(pi["pending"])
    assert pending.stop_reason == "pending" and pending.content == []
    deferred = AssistantMessage.model_validate(pi["deferred"])
    assert deferred.stop_reason == "deferred"
    assert isinstance(deferred.deferred, DeferredHandle)
    assert (deferred.deferred.model_id, deferred.deferred.poll_after_ms) == ("faux-reasoner", 250)
    assert deferred.deferred.id.startswith("deferred:")


def test_the_1_6_fields_no_faux_path_writes(pi: dict[str, Any]) -> None:
    assistant = AssistantMessage.model_validate(pi["shapes"]["assistant"])
    assert (assistant.provider_thinking_level, assistant.thinking_level) == ("xhigh", "max")
    assert (assistant.raw_stop_reason, assistant.end_turn, assistant.duration_ms) == (
        "completed",
        False,
        1843,
    )
    usage = assistant.usage
    assert (usage.reasoning, usage.cache_write_1h, usage.cost.total_from_provider) == (
        250,
        1000,
        True,
    )
    call = assistant.tool_calls[0]
    assert (call.namespace, call.arguments_error) == ("web", None)
    result = ToolResultMessage.model_validate(pi["shapes"]["toolResult"])
    assert (
        isinstance(result.nested_calls, NestedToolCalls) and result.nested_calls.complete is False
    )
    ok, failed, running = result.nested_calls.calls
    assert (ok.status, ok.arguments, ok.duration_ms) == ("ok", {"url": "https://example.com"}, 12)
    assert (failed.status, failed.arguments, failed.arguments_bytes, failed.error) == (
        "error",
        None,
        70000,
        "timeout",
    )
    assert running.status == "unfinished" and running.duration_ms is None


def test_a_call_pi_marked_malformed_never_runs_and_is_replayed_empty(pi: dict[str, Any]) -> None:
    data = pi["argumentsError"]
    call = ToolCall.model_validate(data)
    assert call.model_dump() == data and call.invalid_arguments is None
    assert call.arguments == {} and call.arguments_error is not None
    assert call.arguments_error.endswith('\n\nReceived arguments:\n{"city": "Par')
    assert has_invalid_arguments(call)
    reply = AssistantMessage(
        api="faux", provider="faux", model="m", content=[call], stop_reason="toolUse"
    )
    # pi-agent-core 1.6's error result text (validateToolArguments throws it)
    text = invalid_arguments_text(call, reply)
    assert text == f'Invalid arguments for tool "get_weather": {call.arguments_error}'
    model = Model(id="other", api="openai-completions", provider="openai")
    replayed = transform_messages([reply], model)[0]
    assert isinstance(replayed, AssistantMessage)
    assert replayed.tool_calls[0].arguments == {}


def test_the_levels_are_pi_s(pi: dict[str, Any]) -> None:
    for row in pi["levels"]:
        model = Model(
            id="m",
            api="a",
            provider="p",
            reasoning=row["reasoning"],
            thinking_level_map=row["thinkingLevelMap"],
        )
        assert model.supported_thinking_levels() == row["supported"], row
        for level, clamped in row["clamped"].items():
            assert model.clamp_thinking_level(level) == clamped, (row, level)


def test_the_prices_are_pi_s_to_the_last_bit(pi: dict[str, Any]) -> None:
    for case in pi["costs"]:
        model = Model(id="m", api="a", provider="p", cost=case["prices"])
        expected = case["usage"]
        usage = Usage.model_validate({k: v for k, v in expected.items() if k != "cost"})
        calculate_cost(model, usage)
        cost = usage.cost.model_dump()
        assert (
            expected["cost"].pop("totalFromProvider") is False
        )  # pi writes false; we leave it out
        assert cost == expected["cost"], case


def test_a_malformed_call_pi_sdk_writes_carries_pi_s_mark() -> None:
    call = ToolCall(id="c1", name="get_weather", invalid_arguments='{"city": "Pa')
    data = call.model_dump()
    assert data["invalidArguments"] == '{"city": "Pa'  # pi-sdk's raw text, as before
    assert data["argumentsError"].endswith('\n\nReceived arguments:\n{"city": "Pa')
    assert ToolCall.model_validate(data) == call
    late = ToolCall(id="c2", name="get_weather")
    late.invalid_arguments = ""  # what the stream builder does for a call cut off before any text
    assert late.arguments_error is not None and "cut off" in late.arguments_error
    old = ToolCall.model_validate({"type": "toolCall", "id": "c3", "name": "x", "arguments": {}})
    assert "argumentsError" not in old.model_dump()


@needs_pi16
def test_pi_refuses_to_run_a_malformed_call_pi_sdk_wrote() -> None:
    tool = {
        "name": "get_weather",
        "description": "",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    call = ToolCall(
        id="c1", name="get_weather", arguments={"city": "Pa"}, invalid_arguments='{"city": "Pa'
    )
    judged = run_mjs(
        "pi16_messages.mjs", "validate", stdin={"tool": tool, "toolCall": call.model_dump()}
    )
    assert judged == {"error": f'Invalid arguments for tool "get_weather": {call.arguments_error}'}
    fine = ToolCall(id="c2", name="get_weather", arguments={"city": "Paris"})
    judged = run_mjs(
        "pi16_messages.mjs", "validate", stdin={"tool": tool, "toolCall": fine.model_dump()}
    )
    assert judged == {"arguments": {"city": "Paris"}}


def test_0_73_shaped_messages_load_and_gain_no_field() -> None:
    old = {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 3,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "stop",
        "timestamp": 1767225600000,
    }
    assert AssistantMessage.model_validate(old).model_dump(mode="json") == old
    result = {
        "role": "toolResult",
        "toolCallId": "c",
        "toolName": "t",
        "content": [],
        "isError": False,
        "timestamp": 1,
    }
    assert ToolResultMessage.model_validate(result).model_dump(mode="json") == result


def test_an_image_or_classifier_model_never_loads_as_a_chat_model() -> None:
    chat = Model.model_validate({"id": "m", "api": "a", "provider": "p", "type": "chat"})
    assert chat.type == "chat" and chat.model_dump()["type"] == "chat"
    for kind in ("image", "classifier"):
        with pytest.raises(ValueError, match=f"a '{kind}' model is not a chat model"):
            Model.model_validate(
                {"id": "m", "api": "openrouter-images", "provider": "p", "type": kind}
            )
