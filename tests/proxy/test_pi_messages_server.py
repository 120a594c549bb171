"""``pi-sdk serve`` as a ``pi-messages`` gateway (pi-ai 1.6): our provider -> our server -> vendor.

pi's own client against this server is in ``test_pi16_interop.py``; here our ``pi-messages``
provider and raw HTTP check the route, its events and its refusals.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from _support.loopback import sse_step
from _support.proxy import TOKEN, prompt, tool_use_reply

import pi_sdk
from pi_sdk._serve.request import Refused, parse_pi_messages_request, parse_request
from pi_sdk.agent import ProxyPolicy


def _gateway_model(proxy: Any) -> pi_sdk.Model:
    """The served model as a pi 1.6 app names it: ``"<provider>/<id>"`` on ``pi-messages``."""
    return pi_sdk.Model(
        id=f"{proxy.model.provider}/{proxy.model.id}",
        api="pi-messages",
        provider="gateway",
        base_url=proxy.url,
    )


async def _through(proxy: Any, context: pi_sdk.Context, **options: Any) -> Any:
    options = {"api_key": TOKEN, "max_retries": 0, **options}
    stream = pi_sdk.stream(_gateway_model(proxy), context, pi_sdk.StreamOptions(**options))
    return await stream.result()


async def _post(proxy: Any, body: Any, *, path: str = "/messages", token: str = TOKEN) -> Any:
    headers = {"authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(timeout=30) as client:
        return await client.post(f"{proxy.url}{path}", json=body, headers=headers)


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


async def test_our_provider_through_our_server_gets_the_vendors_reply(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think-7", ('{"city": ', '"Paris"}'))
    async with serve_proxy([reply, reply]) as proxy:
        direct = await pi_sdk.stream(proxy.model, prompt("weather?")).result()
        ours = await _through(proxy, prompt("weather?"), max_tokens=900, tool_choice="auto")
        sent = json.loads(proxy.vendor.requests[1][2])

    def comparable(message: pi_sdk.AssistantMessage) -> dict[str, Any]:
        data = message.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {k: data.get(k) for k in ("content", "usage", "stopReason", "responseId")}

    assert comparable(ours) == comparable(direct)
    assert ours.content[0].thinking_signature == "sig-think-7"  # type: ignore[union-attr]
    assert (ours.api, ours.provider) == ("pi-messages", "gateway")
    assert (sent["max_tokens"], sent["tool_choice"]) == (900, {"type": "auto"})


async def test_the_events_are_pi_messages_shape(serve_proxy: Callable[..., Any]):
    reply = tool_use_reply("sig-1", ('{"city": "Oslo"}',))
    async with serve_proxy([reply]) as proxy:
        context = prompt("weather?").model_dump(mode="json", by_alias=True)
        body = {"model": _gateway_model(proxy).id, "context": context}
        response = await _post(proxy, body, path="/v1/messages")
    assert response.status_code == 200
    events = {event["type"]: event for event in _events(response.text)}
    assert events["thinking_end"]["content"] == "Weather needs a tool."
    assert events["thinking_end"]["contentSignature"] == "sig-1"
    assert events["text_end"]["content"] == "Looking it up."
    assert events["toolcall_end"]["toolCall"]["arguments"] == {"city": "Oslo"}
    assert events["done"]["reason"] == "toolUse"
    assert events["done"]["usage"]["input"] == 11


async def test_a_turn_the_gateway_gave_goes_back_to_the_vendor_as_its_own(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think-9", ('{"city": "Rome"}',))
    async with serve_proxy([reply, reply]) as proxy:
        first = await _through(proxy, prompt("weather?"))
        call = first.tool_calls[0]
        result = pi_sdk.ToolResultMessage(
            tool_call_id=call.id, tool_name=call.name, content=[pi_sdk.TextContent(text="sunny")]
        )
        context = prompt("weather?")
        context.messages += [first, result]
        await _through(proxy, context)
        sent = json.loads(proxy.vendor.requests[1][2])
    thinking = sent["messages"][1]["content"][0]
    assert thinking == {
        "type": "thinking",
        "thinking": "Weather needs a tool.",
        "signature": "sig-think-9",
    }


@pytest.mark.parametrize(
    ("body", "token", "status", "error"),
    [
        (
            {},
            "wrong",
            401,
            {"message": "unauthorized: a valid bearer token is required", "code": "unauthorized"},
        ),
        (
            {"model": "openai/gpt-x", "context": {"messages": []}},
            TOKEN,
            403,
            {
                "message": "model openai/gpt-x is not allowed on this proxy",
                "code": "model_not_allowed",
            },
        ),
        (
            {"model": "claude-x", "context": {"messages": []}},
            TOKEN,
            400,
            {
                "message": "model must be a string '<provider>/<id>', e.g. 'anthropic/claude-x'",
                "code": "invalid_request",
            },
        ),
    ],
)
async def test_refusals_are_pi_messages_errors(
    serve_proxy: Callable[..., Any], body: Any, token: str, status: int, error: Any
):
    async with serve_proxy([sse_step([])]) as proxy:
        response = await _post(proxy, body, token=token)
        assert proxy.vendor.requests == []
    assert response.status_code == status
    assert response.json() == {"error": error}


async def test_our_provider_reports_a_refusal_in_pi_ais_words(serve_proxy: Callable[..., Any]):
    async with serve_proxy([sse_step([])], allow=("openai/*",)) as proxy:
        message = await _through(proxy, prompt())
    assert message.error_message == (
        f"403 Forbidden: model anthropic/{proxy.model.id} is not allowed on this proxy"
        " (model_not_allowed)"
    )


def _policy(model: pi_sdk.Model) -> ProxyPolicy:
    return ProxyPolicy(token=TOKEN, allow=("*/*",), resolve_model=lambda provider, id: model)


CONTEXT = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


def test_pi_messages_options_become_ours():
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    body = {
        "model": "anthropic/m",
        "context": CONTEXT,
        "options": {
            "temperature": 0.1,
            "maxTokens": 10,
            "reasoning": "max",
            "cacheRetention": "long",
            "sessionId": "s",
            "toolChoice": {"type": "function", "function": {"name": "find"}},
        },
    }
    _, _, options = parse_pi_messages_request(json.dumps(body).encode(), _policy(model))
    assert (options.temperature, options.max_tokens, options.reasoning) == (0.1, 10, "max")
    assert (options.cache_retention, options.session_id) == ("long", "s")
    assert options.tool_choice == {"name": "find"}


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"thinkingBudgets": {}}, "unknown option 'thinkingBudgets'"),
        ({"toolChoice": {"type": "tool", "name": "x"}}, "toolChoice must name a function"),
        ({"toolChoice": "maybe"}, "invalid options: toolChoice"),
    ],
)
def test_a_pi_messages_option_it_cannot_apply_is_refused(options: Any, error: str):
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    body = json.dumps({"model": "anthropic/m", "context": CONTEXT, "options": options})
    with pytest.raises(Refused, match=error) as refused:
        parse_pi_messages_request(body.encode(), _policy(model))
    assert refused.value.status == 400


@pytest.mark.parametrize(
    ("api", "merged"),
    [
        ("openai-completions", True),
        ("openai-responses", True),
        ("azure-openai-responses", True),
        ("anthropic-messages", False),
        ("google-generative-ai", False),
    ],
)
async def test_proxy_1_6_options_are_taken(api: str, merged: bool):
    """``samplingParams`` goes into OpenAI-compatible bodies; ``disableContinuation`` is moot."""
    model = pi_sdk.Model(id="m", api=api, provider="p")
    options = {"samplingParams": {"top_p": 0.9, "min_p": 0.05}, "disableContinuation": True}
    body = {"model": {"provider": "p", "id": "m"}, "context": CONTEXT, "options": options}
    _, _, parsed = parse_request(json.dumps(body).encode(), _policy(model))
    hook = parsed.on_payload
    assert (hook is not None) == merged
    if hook is not None:
        assert hook({"model": "m", "top_p": 1}, model) == {
            "model": "m",
            "top_p": 0.9,
            "min_p": 0.05,
        }


@pytest.mark.parametrize("path", ["/api/stream", "/messages"])
async def test_a_transcript_context_reaches_the_vendor_as_its_current_prompt_and_tools(
    serve_proxy: Callable[..., Any], path: str
):
    """pi 1.6 clients send the prompt and tools as system messages; later ones change them."""
    old = {"name": "old", "description": "Gone.", "parameters": {"type": "object"}}
    new = {"name": "new", "description": "Added.", "parameters": {"type": "object"}}
    context = {
        "messages": [
            {"role": "system", "content": "Be brief.", "toolsAdded": [old], "timestamp": 0},
            {"role": "user", "content": "hi", "timestamp": 1},
            {
                "role": "system",
                "content": "Answer in French.",
                "toolsAdded": [new],
                "toolsRemoved": [{"name": "old"}],
                "timestamp": 2,
            },
            {"role": "user", "content": "again", "timestamp": 3},
        ]
    }
    async with serve_proxy([sse_step([])]) as proxy:
        model: Any = _gateway_model(proxy).id
        if path == "/api/stream":
            model = {"provider": proxy.model.provider, "id": proxy.model.id}
        response = await _post(proxy, {"model": model, "context": context}, path=path)
        sent = json.loads(proxy.vendor.requests[0][2])
    assert response.status_code == 200
    system = sent["system"] if isinstance(sent["system"], str) else sent["system"][0]["text"]
    assert system == "Be brief.\n\nAnswer in French."  # this model takes no system message later
    assert [tool["name"] for tool in sent["tools"]] == ["new"]
    assert [m["role"] for m in sent["messages"]] == ["user", "user"]


def test_a_transcript_context_goes_to_the_provider_as_received():
    """The provider sends later system messages in place where its model takes them."""
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    context = {
        "messages": [
            {"role": "system", "content": "Be brief.", "timestamp": 0},
            {"role": "user", "content": "hi", "timestamp": 1},
            {"role": "system", "content": "Answer in French.", "timestamp": 2},
        ]
    }
    body = json.dumps({"model": "anthropic/m", "context": context}).encode()
    _, parsed, _ = parse_pi_messages_request(body, _policy(model))
    assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True) == context


@pytest.mark.parametrize("mode", ["auto", "none", "required"])
def test_a_tool_choice_mode_is_taken_as_it_is(mode: str):
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    body = {"model": "anthropic/m", "context": CONTEXT, "options": {"toolChoice": mode}}
    _, _, options = parse_pi_messages_request(json.dumps(body).encode(), _policy(model))
    assert options.tool_choice == mode


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "function", "function": {"name": ""}},
        {"type": "function", "function": {"name": 3}},
        {"type": "function", "function": "find"},
        {"type": "function"},
        {"function": {"name": "find"}},
    ],
)
def test_a_tool_choice_object_must_name_a_function(choice: dict[str, Any]):
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    body = {"model": "anthropic/m", "context": CONTEXT, "options": {"toolChoice": choice}}
    with pytest.raises(Refused) as refused:
        parse_pi_messages_request(json.dumps(body).encode(), _policy(model))
    assert (refused.value.status, str(refused.value)) == (
        400,
        "invalid options: toolChoice must name a function",
    )


@pytest.mark.parametrize(
    ("requested", "asked"),
    [
        ("anthropic/m", ("anthropic", "m")),
        ("openrouter/anthropic/x", ("openrouter", "anthropic/x")),  # split at the first "/"
        ("anthropic/", None),
        ("/m", None),
        ("anthropic", None),
        (["anthropic", "m"], None),
        (None, None),
    ],
)
def test_the_model_string_is_provider_slash_id(requested: Any, asked: tuple[str, str] | None):
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    seen: list[tuple[str, str]] = []

    def resolve(provider: str, model_id: str) -> pi_sdk.Model:
        seen.append((provider, model_id))
        return model

    policy = ProxyPolicy(token=TOKEN, allow=("*/*",), resolve_model=resolve)
    body = json.dumps({"model": requested, "context": CONTEXT}).encode()
    if asked is not None:
        assert parse_pi_messages_request(body, policy)[0] is model
        assert seen == [asked]
        return
    with pytest.raises(Refused) as refused:
        parse_pi_messages_request(body, policy)
    assert refused.value.status == 400 and str(refused.value).startswith("model must be a string")
    assert seen == []


@pytest.mark.parametrize(
    ("api", "model_name", "ours"),
    [
        ("pi-messages", "anthropic/m", True),  # this server's own turn for this model
        ("pi-messages", "anthropic/other", False),  # another model's turn
        ("anthropic-messages", "anthropic/m", False),  # not a gateway turn
    ],
)
def test_only_this_models_gateway_turns_go_back_as_the_vendors_own(
    api: str, model_name: str, ours: bool
):
    model = pi_sdk.Model(id="m", api="anthropic-messages", provider="anthropic")
    turn = {
        "role": "assistant", "content": [{"type": "text", "text": "hello"}], "api": api,
        "provider": "gateway", "model": model_name, "signatureOrigin": "gateway@x",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop", "timestamp": 2,
    }  # fmt: skip
    context = {"messages": [*CONTEXT["messages"], turn, CONTEXT["messages"][0]]}
    body = json.dumps({"model": "anthropic/m", "context": context}).encode()
    _, parsed, _ = parse_pi_messages_request(body, _policy(model))
    sent = parsed.messages[1]
    assert isinstance(sent, pi_sdk.AssistantMessage)
    if ours:
        assert (sent.api, sent.provider, sent.model) == ("anthropic-messages", "anthropic", "m")
        assert sent.signature_origin is None
    else:
        assert (sent.api, sent.provider, sent.model) == (api, "gateway", model_name)
        assert sent.signature_origin == "gateway@x"
