"""The ``pi-messages`` provider (pi-ai 1.6) against a scripted backend: its request, its events.

The backend is a loopback server playing pi-messages events as pi-ai 1.6 documents them
(``api/pi-messages.d.ts``); pi's own server and client are in ``test_pi16_interop.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, Step, json_step, sse_step
from _support.proxy import USAGE, played, prompt

import pi_sdk
from pi_sdk._serve.pi_messages_client import PI_MESSAGES
from pi_sdk.agent import pi_messages_provider
from pi_sdk.plugins import use_plugin_manager

KEY = "gw-key-8d1e5a77c0"
CALL = {
    "type": "toolCall",
    "id": "call_1",
    "name": "lookup",
    "arguments": {"q": "pi", "n": 2},
    "thoughtSignature": "ts-1",
    "namespace": "search",
}
REPLY = [
    {"type": "start"},
    {"type": "thinking_start", "contentIndex": 0},
    {"type": "thinking_delta", "contentIndex": 0, "delta": "Let me "},
    {
        "type": "thinking_end",
        "contentIndex": 0,
        "content": "Let me search.",
        "contentSignature": "think-sig",
        "redacted": True,
    },
    {"type": "text_start", "contentIndex": 1},
    {"type": "text_delta", "contentIndex": 1, "delta": "Looking"},
    {"type": "text_end", "contentIndex": 1, "content": "Looking it up."},
    {"type": "toolcall_start", "contentIndex": 2, "id": "call_1", "toolName": "lookup"},
    {"type": "toolcall_delta", "contentIndex": 2, "delta": '{"q": "pi", '},
    {"type": "toolcall_delta", "contentIndex": 2, "delta": '"n": 2}'},
    {"type": "toolcall_end", "contentIndex": 2, "toolCall": CALL},
    {
        "type": "done",
        "reason": "toolUse",
        "usage": USAGE,
        "responseId": "resp_42",
        "responseModel": "claude-x-2026",
        "providerThinkingLevel": "high",
        "rewrite": {
            "policyId": "p1",
            "policyVersion": 3,
            "changed": True,
            "tokenCountChange": -12,
            "messageCountChange": -1,
            "systemPromptChanged": False,
        },
    },
]


def _model(url: str) -> pi_sdk.Model:
    return pi_sdk.Model(
        id="anthropic/claude-x", api="pi-messages", provider="gateway", base_url=f"{url}/v1"
    )


async def _call(steps: list[Step], **options: Any) -> tuple[LoopbackServer, Any, list[str]]:
    options.setdefault("api_key", KEY)

    def call(url: str) -> Any:
        return pi_sdk.stream(_model(url), prompt("q"), pi_sdk.StreamOptions(**options))

    server, message, events = await played(steps, call)
    return server, message, [event.type for event in events]


async def test_the_request_is_pi_messages_shape_with_the_set_options():
    server, _, _ = await _call(
        [sse_step(REPLY)],
        headers={"x-trace": "t1"},
        tool_choice={"name": "lookup"},
        temperature=0.3,
        max_tokens=512,
        reasoning="high",
        session_id="s-9",
    )
    method, target, body = server.requests[0]
    assert (method, target) == ("POST", "/v1/messages")
    sent = json.loads(body)
    assert sent["model"] == "anthropic/claude-x"
    assert sent["options"] == {
        "temperature": 0.3,
        "maxTokens": 512,
        "reasoning": "high",
        "sessionId": "s-9",
        "toolChoice": {"type": "function", "function": {"name": "lookup"}},
    }
    assert sent["context"]["messages"][0]["content"] == "q"
    headers = server.headers[0]
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["accept"] == "text/event-stream"
    assert headers["x-trace"] == "t1"


async def test_the_context_goes_in_pi_16_transcript_form():
    async with LoopbackServer([sse_step(REPLY)]) as server:
        tool = pi_sdk.Tool(name="lookup", description="Find it.")
        context = pi_sdk.Context(
            system_prompt="Be brief.", tools=[tool], messages=prompt().messages
        )
        await pi_sdk.stream(_model(server.url), context, pi_sdk.StreamOptions(api_key=KEY)).result()
    sent = json.loads(server.requests[0][2])["context"]
    assert set(sent) == {"messages"}
    system, user = sent["messages"]
    assert system == {
        "role": "system",
        "content": "Be brief.",
        "toolsAdded": [tool.model_dump(mode="json", by_alias=True)],
        "timestamp": 0,
    }
    assert user["role"] == "user"


async def test_long_cache_retention_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    server, _, _ = await _call([sse_step(REPLY)])
    assert json.loads(server.requests[0][2])["options"] == {"cacheRetention": "long"}


async def test_the_reply_takes_what_the_gateway_sent_as_is():
    _, message, kinds = await _call([sse_step(REPLY)])
    thinking, text, call = message.content
    assert (thinking.thinking, thinking.thinking_signature, thinking.redacted) == (
        "Let me search.",
        "think-sig",
        True,
    )
    assert text.text == "Looking it up."
    assert isinstance(call, pi_sdk.ToolCall)
    assert call.model_dump(mode="json", by_alias=True, exclude_none=True) == CALL
    assert message.stop_reason == "toolUse"
    assert message.usage.model_dump(mode="json", by_alias=True) == USAGE  # priced there
    assert (message.response_id, message.response_model) == ("resp_42", "claude-x-2026")
    assert message.provider_thinking_level == "high"
    [note] = message.diagnostics or []
    assert note.type == "pi_messages_rewrite" and note.details == REPLY[-1]["rewrite"]
    # Deltas add up to the final text: the gateway's whole text arrives as one more delta.
    assert kinds.count("text_delta") == 2 and kinds.count("thinking_delta") == 2


async def test_an_arguments_error_from_the_gateway_is_kept():
    broken = {**CALL, "arguments": {}, "argumentsError": "Unexpected end of JSON input"}
    events = [*REPLY[:10], {**REPLY[10], "toolCall": broken}, REPLY[-1]]
    _, message, _ = await _call([sse_step(events)])
    call = message.content[2]
    assert isinstance(call, pi_sdk.ToolCall)
    assert (call.arguments, call.arguments_error) == ({}, "Unexpected end of JSON input")


async def test_a_gateway_error_event_ends_the_reply_with_its_text_and_usage():
    events = [
        *REPLY[:7],
        {"type": "error", "reason": "error", "errorMessage": "upstream 529", "usage": USAGE},
    ]
    _, message, _ = await _call([sse_step(events)])
    assert (message.stop_reason, message.error_message) == ("error", "upstream 529")
    assert message.text == "Looking it up."
    assert message.usage.cost.total == 0.31


async def test_a_stream_without_its_terminal_event_is_an_error_keeping_the_content():
    _, message, _ = await _call([sse_step(REPLY[:6])], max_retries=0)
    assert message.stop_reason == "error"
    assert "gateway stream ended before its done or error event" in (message.error_message or "")
    assert message.text == "Looking"


@pytest.mark.parametrize(
    ("step", "error"),
    [
        (
            json_step(400, {"error": {"message": "unknown model", "code": "invalid_request"}}),
            "400 Bad Request: unknown model (invalid_request)",
        ),
        (json_step(403, {"error": {"message": "nope"}}), "403 Forbidden: nope"),
        (json_step(404, b"<html>no such route</html>"), "404 Not Found: no such route"),
    ],
)
async def test_a_refusal_reads_as_pi_ai_says_it(step: Step, error: str):
    server, message, _ = await _call([step], max_retries=2)
    assert (message.stop_reason, message.error_message) == ("error", error)
    assert len(server.requests) == 1  # not retried


async def test_a_busy_gateway_is_retried_before_any_content():
    busy = json_step(503, {"error": {"message": "warming up"}})
    server, message, _ = await _call([busy, sse_step(REPLY)], max_retries=1)
    assert len(server.requests) == 2
    assert message.stop_reason == "toolUse"


async def test_the_key_never_shows_in_an_error():
    echo = json_step(401, {"error": {"message": f"bad key {KEY}", "code": "unauthorized"}})
    _, message, _ = await _call([echo])
    assert KEY not in (message.error_message or "")
    assert message.error_message == "401 Unauthorized: bad key [REDACTED] (unauthorized)"


async def test_without_a_key_the_call_fails_before_sending(monkeypatch: pytest.MonkeyPatch):
    server, message, _ = await _call([sse_step(REPLY)], api_key=None)
    assert message.error_message == 'No API key provided for provider "gateway"'
    assert server.requests == []


async def test_a_provider_of_the_application_gives_its_key_and_url():
    async with LoopbackServer([sse_step(REPLY)]) as server:
        gateway = pi_messages_provider(
            "gateway",
            base_url=f"{server.url}/v1",
            auth=pi_sdk.ProviderAuth(api_key=KEY),
            models=[pi_sdk.Model(id="anthropic/claude-x", api="pi-messages", provider="gateway")],
        )
        models = pi_sdk.Models([gateway])
        model = models.get_model("gateway", "anthropic/claude-x")
        message = await models.complete(model, prompt("q"))
    assert message.stop_reason == "toolUse", message.error_message
    assert server.requests[0][1] == "/v1/messages"
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_pi_sdk_core_publishes_the_api_through_its_entry_point(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("PI_SDK_LOAD_PLUGINS", "pi-messages")  # this entry point alone
    with use_plugin_manager(load_entry_points=True) as manager:
        assert pi_sdk.get_api_provider("pi-messages") is PI_MESSAGES
        assert manager.distributions["pi-messages"][0] == "pi-sdk-core"


# --- the body and the refusal text, in process ------------------------------------------------


def _body(monkeypatch: pytest.MonkeyPatch, env: str | None = None, **options: Any) -> Any:
    from pi_sdk._serve.pi_messages_client import pi_messages_body

    if env is None:
        monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    else:
        monkeypatch.setenv("PI_CACHE_RETENTION", env)
    model = pi_sdk.Model(id="anthropic/claude-x", api="pi-messages", provider="gateway")
    return pi_messages_body(model, prompt("q"), pi_sdk.StreamOptions(**options))["options"]


@pytest.mark.parametrize(
    ("env", "retention", "sent"),
    [
        (None, None, None),
        ("long", None, "long"),
        ("long", "short", "short"),  # the call's own setting wins
        ("short", None, None),  # only "long" is read from the environment
        ("LONG", None, None),
        ("", None, None),
        (None, "none", "none"),
    ],
)
def test_cache_retention_is_the_calls_else_long_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: str | None, retention: Any, sent: str | None
):
    options = _body(monkeypatch, env, cache_retention=retention)
    assert options.get("cacheRetention") == sent
    assert ("cacheRetention" in options) is (sent is not None)


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"name": "look"}, {"type": "function", "function": {"name": "look"}}),
    ],
)
def test_each_tool_choice_is_sent_in_pis_form(
    monkeypatch: pytest.MonkeyPatch, choice: Any, sent: Any
):
    assert _body(monkeypatch, tool_choice=choice) == {"toolChoice": sent}


def test_zero_values_are_sent_and_only_unset_ones_left_out(monkeypatch: pytest.MonkeyPatch):
    assert _body(monkeypatch, temperature=0.0, max_tokens=0, session_id="") == {
        "temperature": 0.0,
        "maxTokens": 0,
        "sessionId": "",
    }
    assert _body(monkeypatch) == {}


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (
            b'{"error": {"message": "unknown model", "code": "bad_model"}}',
            "unknown model (bad_model)",
        ),
        (b'{"error": {"message": "unknown model", "code": ""}}', "unknown model"),
        (b'{"error": {"message": "unknown model", "code": 400}}', "unknown model"),
        (b'{"error": {"message": "unknown model"}}', "unknown model"),
        (b'{"error": {"message": 5, "code": "c"}}', '{"error": {"message": 5, "code": "c"}} (c)'),
        (b'{"error": "unknown model"}', '{"error": "unknown model"}'),
        (b'["unknown model"]', '["unknown model"]'),
        (b"<p>no  such\nroute</p>", "no such route"),
        (b"", ""),
    ],
)
def test_a_refusal_is_status_reason_message_and_code(raw: bytes, said: str):
    from pi_sdk._serve.pi_messages_client import pi_messages_refusal

    assert pi_messages_refusal(418, "I'm a teapot", raw) == f"418 I'm a teapot: {said}"


async def test_the_call_goes_to_the_base_url_without_its_trailing_slash_with_the_headers_in_order():
    from pi_sdk._serve.pi_messages_client import call_pi_messages

    captured: dict[str, Any] = {}

    async def event_post_call(url: str, body: Any, **kwargs: Any) -> str:
        captured.update(url=url, body=body("origin"), **kwargs)
        return "plan"

    model = pi_sdk.Model(
        id="m",
        api="pi-messages",
        provider="gateway",
        base_url="http://gw.test/v1/",
        headers={"Authorization": "model's", "x-a": "model", "x-b": "model"},
    )
    options = pi_sdk.StreamOptions(api_key=KEY, headers={"x-b": "call"})
    import pi_sdk._serve.event_post as event_post

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(event_post, "event_post_call", event_post_call)
        assert await call_pi_messages(model, prompt("q"), options) == "plan"
    assert captured["url"] == "http://gw.test/v1/messages"
    assert captured["headers"]["Authorization"] == f"Bearer {KEY}"  # over the model's
    assert (captured["headers"]["x-a"], captured["headers"]["x-b"]) == ("model", "call")
    assert captured["source"] == "gateway"
    assert captured["body"]["model"] == "m"


def test_a_gateway_provider_has_default_auth_and_only_the_pi_messages_api():
    gateway = pi_messages_provider("gw", base_url="http://gw.test", name="GW")
    assert (gateway.id, gateway.name, gateway.base_url) == ("gw", "GW", "http://gw.test")
    assert gateway.auth == pi_sdk.ProviderAuth()
    assert [api.api for api in gateway.apis] == ["pi-messages"]
