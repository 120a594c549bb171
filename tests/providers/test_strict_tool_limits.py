"""Strict tools over Claude's limits: the refused request goes once more without them (pi-ai 1.6).

Claude (Anthropic API: HTTP 400 ``invalid_request_error``; Bedrock: ``ValidationException``)
refuses a request whose strict tools exceed its limits (``strict-tool-limits.ts``). pi-ai 1.6
then sends it once more with its ``strict: "prefer"`` tools non-strict (``require`` ones stay
strict), notes an ``<api>_strict_tools_fallback`` diagnostic on the reply, and remembers the
session, whose later requests send them non-strict at once. A scripted loopback server plays the
vendor; the tests read the requests it got.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from _support.loopback import LoopbackServer, Step, json_step, model_at, text_reply
from _support.wire import wire_for

import pi_sdk
from pi_sdk import AbortController, Context, StreamOptions, Tool, UserMessage
from pi_sdk._stream import resend

APIS = ("anthropic-messages", "bedrock-converse-stream")
DIAGNOSTIC = {
    "anthropic-messages": "anthropic_strict_tools_fallback",
    "bedrock-converse-stream": "bedrock_strict_tools_fallback",
}
LIMIT_MESSAGES = (
    "The compiled grammar is too large, which would cause performance issues.",
    "Too many strict tools (25). The maximum number of strict tools is 20.",
    "Schemas contains too many parameters with union types (17). The maximum is 16.",
)
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _tool(name: str, strict: str | None) -> Tool:
    sampling = {"type": "json_schema", "strict": strict} if strict else None
    return Tool(name=name, description=name, parameters=SCHEMA, constrained_sampling=sampling)


PREFER, REQUIRE, PLAIN = (
    _tool("prefer", "prefer"),
    _tool("require", "require"),
    _tool("plain", None),
)


def _refusal(api: str, message: str = LIMIT_MESSAGES[1], status: int = 400) -> Step:
    body, code = wire_for(api).http_error(status, message)
    headers = {"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/"}
    return json_step(status, body, headers if api.startswith("bedrock") else None)


def _strict_of(api: str, body: bytes) -> dict[str, bool]:
    """Tool name -> whether the request sent it strict."""
    payload = json.loads(body)
    if api == "anthropic-messages":
        return {tool["name"]: tool.get("strict") is True for tool in payload["tools"]}
    specs = [tool["toolSpec"] for tool in payload["toolConfig"]["tools"]]
    return {spec["name"]: spec.get("strict") is True for spec in specs}


async def _call(
    server: LoopbackServer, api: str, tools: list[Tool], **options: Any
) -> pi_sdk.AssistantMessage:
    context = Context(messages=[UserMessage(content="Weather?")], tools=tools)
    settings = StreamOptions(api_key="test-key", **{"max_retries": 0, **options})
    return await asyncio.wait_for(pi_sdk.complete(model_at(api, server.url), context, settings), 60)


def _fallbacks(message: pi_sdk.AssistantMessage) -> list[pi_sdk.Diagnostic]:
    return [d for d in message.diagnostics or () if d.type.endswith("_strict_tools_fallback")]


@pytest.mark.parametrize("limit", LIMIT_MESSAGES)
@pytest.mark.parametrize("api", APIS)
async def test_a_refusal_over_the_limits_is_sent_once_more_with_prefer_tools_non_strict(
    api: str, limit: str
):
    hooked: list[dict[str, Any]] = []
    async with LoopbackServer([_refusal(api, limit), text_reply(api, "Hello")]) as server:
        message = await _call(
            server, api, [PREFER, REQUIRE, PLAIN], on_payload=lambda p, _m: hooked.append(p)
        )
        bodies = [body for _, _, body in server.requests]
    assert message.stop_reason == "stop" and message.text == "Hello", message.error_message
    assert len(bodies) == 2
    assert _strict_of(api, bodies[0]) == {"prefer": True, "require": True, "plain": False}
    assert _strict_of(api, bodies[1]) == {"prefer": False, "require": True, "plain": False}
    # The payload hooks ran on both requests (pi-ai 1.6 onPayload on the rebuilt params).
    assert len(hooked) == 2 and hooked[0] is not hooked[1]
    [diagnostic] = _fallbacks(message)
    assert diagnostic.type == DIAGNOSTIC[api]
    assert diagnostic.details == {"reason": "strict_tool_limits_exceeded"}
    assert limit in (diagnostic.error or {})["message"]
    assert diagnostic.timestamp > 0


@pytest.mark.parametrize("api", APIS)
async def test_another_400_is_the_calls_error_and_is_not_sent_again(api: str):
    refusal = _refusal(api, "messages.0.content: Field required")
    async with LoopbackServer([refusal, text_reply(api)]) as server:
        message = await _call(server, api, [PREFER])
        assert len(server.requests) == 1
    assert message.stop_reason == "error"
    assert "Field required" in (message.error_message or "")
    assert _fallbacks(message) == []


async def test_a_refusal_with_the_limit_text_but_another_error_type_is_not_sent_again():
    # Anthropic: only a 400 invalid_request_error (pi-ai 1.6 checks the status and the type).
    api = "anthropic-messages"
    body, _ = wire_for(api).http_error(429, LIMIT_MESSAGES[1])
    async with LoopbackServer([json_step(429, body), text_reply(api)]) as server:
        message = await _call(server, api, [PREFER])
        assert len(server.requests) == 1
    assert message.stop_reason == "error" and _fallbacks(message) == []


@pytest.mark.parametrize("api", APIS)
async def test_a_second_refusal_is_the_calls_error_and_nothing_is_sent_a_third_time(api: str):
    async with LoopbackServer([_refusal(api)]) as server:  # the last step repeats
        message = await _call(server, api, [PREFER, REQUIRE])
        bodies = [body for _, _, body in server.requests]
    assert len(bodies) == 2
    assert _strict_of(api, bodies[1]) == {"prefer": False, "require": True}
    assert message.stop_reason == "error"
    assert "Too many strict tools" in (message.error_message or "")
    # The error reply still tells that its request was sent again (pi-ai 1.6 keeps it).
    assert [d.type for d in _fallbacks(message)] == [DIAGNOSTIC[api]]


@pytest.mark.parametrize("api", APIS)
async def test_a_request_without_prefer_strict_tools_is_not_sent_again(api: str):
    async with LoopbackServer([_refusal(api), text_reply(api)]) as server:
        message = await _call(server, api, [REQUIRE, PLAIN])
        assert len(server.requests) == 1
    assert message.stop_reason == "error"
    assert "Too many strict tools" in (message.error_message or "")


@pytest.mark.parametrize("api", APIS)
async def test_the_session_is_remembered_and_its_next_request_goes_non_strict_at_once(api: str):
    session = f"session-{uuid.uuid4()}"
    async with LoopbackServer([_refusal(api), text_reply(api)]) as server:
        first = await _call(server, api, [PREFER], session_id=session)
        server.play(text_reply(api, "Again"))
        second = await _call(server, api, [PREFER], session_id=session)
        bodies = [body for _, _, body in server.requests]
    assert first.text == "Hello" and len(_fallbacks(first)) == 1
    assert second.text == "Again" and _fallbacks(second) == []
    assert len(bodies) == 3
    assert _strict_of(api, bodies[2]) == {"prefer": False}


async def test_the_memory_is_shared_by_the_anthropic_and_bedrock_apis():
    # pi-ai 1.6: one set of sessions for both providers, which run the same Claude limits.
    session = f"session-{uuid.uuid4()}"
    anthropic, bedrock = APIS
    async with LoopbackServer([_refusal(anthropic), text_reply(anthropic)]) as server:
        await _call(server, anthropic, [PREFER], session_id=session)
    async with LoopbackServer([text_reply(bedrock)]) as server:
        message = await _call(server, bedrock, [PREFER], session_id=session)
        [(_, _, body)] = server.requests
    assert message.stop_reason == "stop" and _strict_of(bedrock, body) == {"prefer": False}


@pytest.mark.parametrize("api", APIS)
async def test_a_call_without_a_session_remembers_nothing(api: str):
    async with LoopbackServer([_refusal(api), text_reply(api)]) as server:
        await _call(server, api, [PREFER])
        server.play(_refusal(api), text_reply(api))
        message = await _call(server, api, [PREFER])
        bodies = [body for _, _, body in server.requests]
    assert len(bodies) == 4  # refused and sent again, each time
    assert [_strict_of(api, body)["prefer"] for body in bodies] == [True, False, True, False]
    assert len(_fallbacks(message)) == 1


async def test_the_memory_keeps_the_newest_sessions_up_to_its_bound(
    monkeypatch: pytest.MonkeyPatch,
):
    assert resend.MAX_REMEMBERED_SESSIONS == 10_000  # pi-ai 1.6's bound
    monkeypatch.setattr(resend, "MAX_REMEMBERED_SESSIONS", 2)
    api = "anthropic-messages"

    def claude(method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
        del method, target, headers  # refuses any strict "prefer" tool, as over its limits
        return _refusal(api) if _strict_of(api, body)["prefer"] else text_reply(api)

    sessions = [f"session-{n}-{uuid.uuid4()}" for n in range(3)]
    async with LoopbackServer([], route=claude) as server:
        for session in sessions:
            await _call(server, api, [PREFER], session_id=session)
        assert len(server.requests) == 6
        for session in reversed(sessions):  # the two newest go non-strict at once
            await _call(server, api, [PREFER], session_id=session)
        bodies = [body for _, _, body in server.requests[6:]]
    strict = [_strict_of(api, body)["prefer"] for body in bodies]
    assert strict == [False, False, True, False]  # the oldest was dropped: refused once more


@pytest.mark.parametrize("api", APIS)
async def test_a_retry_after_the_resend_sends_the_lesser_request_and_is_not_the_resend(api: str):
    busy, _ = wire_for(api).http_error(429, "Too many requests")
    throttled = json_step(429, busy, {"x-amzn-ErrorType": "ThrottlingException"})
    steps = [_refusal(api), throttled, text_reply(api, "Hello")]
    async with LoopbackServer(steps) as server:
        message = await _call(server, api, [PREFER], max_retries=1, max_retry_delay_ms=1)
        bodies = [body for _, _, body in server.requests]
    assert message.text == "Hello", message.error_message
    assert [_strict_of(api, body)["prefer"] for body in bodies] == [True, False, False]
    assert len(_fallbacks(message)) == 1


@pytest.mark.parametrize("api", APIS)
async def test_a_call_aborted_while_refused_is_not_sent_again(api: str):
    controller = AbortController()

    def refuse(method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
        del method, target, headers, body
        controller.abort()
        return _refusal(api)

    async with LoopbackServer([], route=refuse) as server:
        message = await _call(server, api, [PREFER], signal=controller.signal)
        assert len(server.requests) == 1
    assert message.stop_reason == "aborted"
    assert _fallbacks(message) == []


@pytest.mark.parametrize("api", APIS)
async def test_prefer_tools_a_system_message_declares_are_sent_again_non_strict(api: str):
    # pi-ai 1.6 transcripts declare tools in system messages, not only in Context.tools.
    messages = [
        pi_sdk.SystemMessage(content="Use tools.", tools_added=[PREFER, REQUIRE]),
        UserMessage(content="Weather?"),
    ]
    async with LoopbackServer([_refusal(api), text_reply(api)]) as server:
        settings = StreamOptions(api_key="test-key", max_retries=0)
        message = await pi_sdk.complete(
            model_at(api, server.url), Context(messages=messages), settings
        )
        bodies = [body for _, _, body in server.requests]
    assert message.text == "Hello", message.error_message
    assert _strict_of(api, bodies[1]) == {"prefer": False, "require": True}
