"""The proxy end to end: ``stream_proxy`` -> ``proxy_app`` under uvicorn -> a loopback vendor."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from _support.loopback import Step, json_step, sse_step, text_reply
from _support.proxy import API, TOKEN, VENDOR_KEY, prompt, tool_use_reply
from _support.wire import Text, Tokens, wire_for

import pi_sdk
from pi_sdk.agent import Agent, ProxyPolicy, stream_proxy

STREAMS = 200


def _answer(number: int) -> str:
    return f"answer number {number}, " + "word " * (number % 7)


async def _proxied(proxy: Any, context: pi_sdk.Context, **kwargs: Any) -> pi_sdk.AssistantMessage:
    options = pi_sdk.StreamOptions(max_retries=0)
    return await stream_proxy(
        proxy.model, context, options, proxy_url=proxy.url, auth_token=TOKEN, **kwargs
    ).result()


async def _post_raw(proxy: Any, headers: dict[str, str] | None = None) -> httpx2.Response:
    """POST a minimal call for the proxy's model, with the token; the raw HTTP reply."""
    context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
    request = {"model": {"provider": "anthropic", "id": proxy.model.id}, "context": context}
    headers = {"authorization": f"Bearer {TOKEN}", **(headers or {})}
    async with httpx2.AsyncClient(timeout=30) as client:
        return await client.post(f"{proxy.url}/api/stream", json=request, headers=headers)


@pytest.mark.timeout(300)  # 600 HTTP streams in one process: ~20 s on a shared 2-core machine
async def test_200_concurrent_proxied_streams_are_each_the_vendor_reply_they_asked_for(
    serve_proxy: Callable[..., Any],
):
    steps = [text_reply(API, _answer(number)) for number in range(STREAMS)]
    async with serve_proxy(steps) as proxy, httpx2.AsyncClient(timeout=None) as client:

        async def one(number: int) -> tuple[str, list[str], pi_sdk.AssistantMessage]:
            events = stream_proxy(
                proxy.model,
                prompt(f"prompt {number}"),
                pi_sdk.StreamOptions(max_retries=0),
                proxy_url=proxy.url,
                auth_token=TOKEN,
                client=client,
            )
            deltas = [event.delta async for event in events if event.type == "text_delta"]
            return f"prompt {number}", deltas, await events.result()

        results = await asyncio.gather(*(one(number) for number in range(STREAMS)))

    # The vendor served step i to the i-th request it received: map each prompt to its reply.
    served = {
        json.loads(body)["messages"][0]["content"][0]["text"]: _answer(number)
        for number, (_, _, body) in enumerate(proxy.vendor.requests)
    }
    assert len(served) == STREAMS
    for prompt_text, deltas, message in results:
        assert message.stop_reason == "stop", message.error_message
        assert message.text == served[prompt_text]
        assert "".join(deltas) == message.text
        assert (message.usage.input, message.usage.output) == (5, 3)
        assert message.usage.cost.total > 0


async def test_a_client_disconnect_aborts_the_upstream_call(
    serve_proxy: Callable[..., Any], caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO, logger="pi_sdk.serve")
    body, _ = wire_for(API).events([Text(("first words", " never finished"))], Tokens())
    async with serve_proxy([sse_step(body[:3], end="hang")]) as proxy:
        events = stream_proxy(proxy.model, prompt(), proxy_url=proxy.url, auth_token=TOKEN)
        async for event in events:
            if event.type == "text_delta":
                break
        assert proxy.vendor.client_closes == 0  # the vendor call is still open
        await events.aclose()  # the proxy's client goes away mid-reply
        for _ in range(500):
            if proxy.vendor.client_closes:
                break
            await asyncio.sleep(0.01)
        assert proxy.vendor.client_closes == 1
        assert proxy.vendor.open_connections == 0
    logged = [r.getMessage() for r in caplog.records if r.name == "pi_sdk.serve"]
    assert len(logged) == 1 and " 200 aborted: the client disconnected · " in logged[0]


async def test_a_client_gone_before_any_content_aborts_the_upstream_call(
    serve_proxy: Callable[..., Any],
):
    silent = Step(headers={"content-type": "text/event-stream"}, end="hang")  # thinks forever
    async with serve_proxy([silent]) as proxy, httpx2.AsyncClient(timeout=30) as client:
        context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
        request = {"model": {"provider": "anthropic", "id": proxy.model.id}, "context": context}
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with client.stream(
            "POST", f"{proxy.url}/api/stream", json=request, headers=headers
        ) as response:
            assert response.status_code == 200
            for _ in range(500):  # the vendor call is open
                if proxy.vendor.requests:
                    break
                await asyncio.sleep(0.01)
        # leaving the block closed the connection before any event arrived
        for _ in range(500):
            if proxy.vendor.client_closes:
                break
            await asyncio.sleep(0.01)
        assert proxy.vendor.client_closes == 1


async def test_an_abort_on_the_client_side_aborts_the_upstream_call(
    serve_proxy: Callable[..., Any],
):
    body, _ = wire_for(API).events([Text(("first words", " never finished"))], Tokens())
    async with serve_proxy([sse_step(body[:3], end="hang")]) as proxy:
        controller = pi_sdk.AbortController()
        options = pi_sdk.StreamOptions(signal=controller.signal)
        events = stream_proxy(proxy.model, prompt(), options, proxy_url=proxy.url, auth_token=TOKEN)
        async for event in events:
            if event.type == "text_delta":
                controller.abort()
        message = await events.result()
        assert message.stop_reason == "aborted"
        assert message.text == "first words"
        for _ in range(500):
            if proxy.vendor.client_closes:
                break
            await asyncio.sleep(0.01)
        assert proxy.vendor.client_closes == 1


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}", "Bearer"])
async def test_a_missing_or_wrong_token_is_refused_with_401(
    serve_proxy: Callable[..., Any], authorization: str | None
):
    async with serve_proxy([text_reply(API)]) as proxy:
        headers = {"authorization": authorization} if authorization else {}
        async with httpx2.AsyncClient(timeout=30) as client:
            response = await client.post(f"{proxy.url}/api/stream", json={}, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert "unauthorized" in response.json()["error"]
    assert TOKEN not in response.text
    assert proxy.vendor.requests == []


async def test_the_client_reports_a_refused_token_as_pi_does(serve_proxy: Callable[..., Any]):
    async with serve_proxy([text_reply(API)]) as proxy:
        events = stream_proxy(
            proxy.model, prompt(), proxy_url=proxy.url, auth_token="not-the-token"
        )
        message = await events.result()
    assert message.stop_reason == "error"
    assert message.error_message == "Proxy error: unauthorized: a valid bearer token is required"
    assert proxy.vendor.requests == []  # and not retried: the server was asked once


async def test_an_oversize_body_is_refused_with_413(serve_proxy: Callable[..., Any]):
    async with serve_proxy([text_reply(API)], max_body_bytes=4096) as proxy:
        message = await _proxied(proxy, prompt("x" * 5000))
        small = await _proxied(proxy, prompt("small enough"))

        # Without a content-length (chunked upload), the limit holds while the body is read.
        async def chunks() -> Any:
            for _ in range(10):
                yield b"x" * 1000

        async with httpx2.AsyncClient(timeout=30) as client:
            chunked = await client.post(
                f"{proxy.url}/api/stream",
                content=chunks(),
                headers={"authorization": f"Bearer {TOKEN}"},
            )
    assert message.stop_reason == "error"
    assert message.error_message == ("Proxy error: request body too large: the limit is 4096 bytes")
    assert chunked.status_code == 413
    assert chunked.json() == {"error": "request body too large: the limit is 4096 bytes"}
    assert small.text == "Hello"
    assert len(proxy.vendor.requests) == 1  # only the small one reached the vendor


async def test_an_oversize_body_without_the_token_is_refused_with_401_first(
    serve_proxy: Callable[..., Any],
):
    async with serve_proxy([text_reply(API)], max_body_bytes=4096) as proxy:
        async with httpx2.AsyncClient(timeout=30) as client:
            response = await client.post(
                f"{proxy.url}/api/stream",
                content=b"x" * 5000,
                headers={"authorization": "Bearer wrong"},
            )
    assert response.status_code == 401
    assert response.json() == {"error": "unauthorized: a valid bearer token is required"}
    assert proxy.vendor.requests == []


async def test_a_model_outside_the_allow_list_is_refused(serve_proxy: Callable[..., Any]):
    async with serve_proxy([text_reply(API)], allow=("openai/*", "anthropic/claude-opus-*")) as p:
        message = await _proxied(p, prompt())
    assert message.stop_reason == "error"
    assert message.error_message == (
        f"Proxy error: model anthropic/{p.model.id} is not allowed on this proxy"
    )
    assert p.vendor.requests == []


async def test_the_server_calls_its_own_model_not_the_url_the_client_sent(
    serve_proxy: Callable[..., Any],
):
    async with serve_proxy([text_reply(API, "from the real vendor")]) as proxy:
        elsewhere = proxy.model.model_copy(update={"base_url": "http://127.0.0.1:9/steal"})
        message = await stream_proxy(
            elsewhere, prompt(), proxy_url=proxy.url, auth_token=TOKEN
        ).result()
    assert message.text == "from the real vendor"
    assert any(VENDOR_KEY in value for value in proxy.vendor.headers[0].values())


_MODEL = b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
_CONTEXT = b'{"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}'


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"not json", "the body is not JSON"),
        # Strict JSON: what Python's json module would take but JSON has no value for.
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "context": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "the body is not strict JSON: nested deeper than 500 levels",
        ),
        (
            _MODEL + b' "context": ' + _CONTEXT + b', "options": {"temperature": NaN}}',
            "the body is not strict JSON: NaN is not JSON",
        ),
        (
            _MODEL + b' "context": ' + _CONTEXT + b', "options": {"temperature": 1e999}}',
            "the body is not strict JSON: number 1e999 is out of float range",
        ),
        (
            _MODEL + b' "context": ' + _CONTEXT + b', "options": {"temperature": -1}}',
            "invalid options: temperature: Input should be greater than or equal to 0",
        ),
        # A context with nothing to answer (docs/proxy.md): never sent to the vendor.
        (_MODEL + b' "context": []}', "context must be an object with messages, got a JSON list"),
        (_MODEL + b' "options": {}}', "context must be an object with messages, got missing"),
        (
            _MODEL + b' "context": {"messages": []}}',
            "context.messages is empty: there is nothing to answer",
        ),
        (b"[1]", "the body must be a JSON object {model, context, options}"),
        (b'{"model": "anthropic"}', "model must be an object with provider and id"),
        (
            b'{"model": {"provider": "anthropic", "id": "nope"}}',
            "unknown model anthropic/nope",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "context": {"messages": [{"role": "user"}]}}',
            "invalid context: messages.0.user.content: Field required",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"apiKey": "mine"}}',
            "unknown option 'apiKey'",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"reasoning": "huge"}}',
            "invalid options: ",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"temperature": "hot"}}',
            "invalid options: temperature: Input should be a valid number",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"maxTokens": -5}}',
            "invalid options: maxTokens: Input should be greater than 0",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"cacheRetention": "forever"}}',
            "invalid options: cacheRetention: ",
        ),
        (
            b'{"model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},'
            b' "options": {"thinkingBudgets": {"low": "many"}}}',
            "invalid options: thinkingBudgets: low: Input should be a valid integer",
        ),
    ],
)
async def test_a_bad_request_is_refused_with_400_naming_the_problem(
    serve_proxy: Callable[..., Any], body: bytes, error: str
):
    async with serve_proxy([text_reply(API)]) as proxy, httpx2.AsyncClient(timeout=30) as client:
        response = await client.post(
            f"{proxy.url}/api/stream", content=body, headers={"authorization": f"Bearer {TOKEN}"}
        )
    assert response.status_code == 400
    assert response.json()["error"].startswith(error)
    assert proxy.vendor.requests == []


async def test_an_upstream_http_error_is_a_proxy_error_event_without_the_key(
    serve_proxy: Callable[..., Any],
):
    error_body, code = wire_for(API).http_error(400, f"bad key {VENDOR_KEY} in request")
    async with serve_proxy([json_step(400, error_body)]) as proxy:
        raw = await _post_raw(proxy)
        message = await _proxied(proxy, prompt())
    assert raw.status_code == 200
    frames = [json.loads(line[6:]) for line in raw.text.split("\n\n") if line]
    assert [frame["type"] for frame in frames] == ["start", "error"]
    assert frames[1]["reason"] == "error"
    assert code in frames[1]["errorMessage"]
    assert VENDOR_KEY not in raw.text
    assert message.stop_reason == "error"
    assert code in (message.error_message or "")
    assert VENDOR_KEY not in (message.error_message or "")


async def test_a_stream_function_that_raises_is_an_error_event_without_the_token(
    serve_proxy: Callable[..., Any],
):
    def failing(model: Any, context: Any, options: Any) -> Any:
        raise RuntimeError(f"no route for {TOKEN}")

    async with serve_proxy([text_reply(API)], stream_fn=failing) as proxy:
        message = await _proxied(proxy, prompt())
    assert message.stop_reason == "error"
    assert message.error_message == "no route for [REDACTED]"


async def test_a_quiet_upstream_gets_keep_alive_comments_the_clients_skip(
    serve_proxy: Callable[..., Any],
):
    reply = text_reply(API, "after a long think")
    reply.pauses = {1: 0.6}  # the vendor is silent for 0.6 s mid-reply
    async with serve_proxy([reply, reply], keepalive_ms=100) as proxy:
        raw = await _post_raw(proxy)
        message = await _proxied(proxy, prompt())
    frames = [frame for frame in raw.text.split("\n\n") if frame]
    assert ": keep-alive" in frames
    events = [json.loads(frame[6:]) for frame in frames if frame.startswith("data: ")]
    assert events[-1]["type"] == "done"
    assert message.text == "after a long think"


async def test_browser_pages_of_the_allowed_origins_may_call_it(serve_proxy: Callable[..., Any]):
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    origins = ("https://app.example",)
    async with serve_proxy([text_reply(API, "for the page")], cors_origins=origins) as proxy:
        async with httpx2.AsyncClient(timeout=30) as client:
            allowed = await client.options(
                f"{proxy.url}/api/stream", headers={"origin": "https://app.example", **preflight}
            )
            other = await client.options(
                f"{proxy.url}/api/stream", headers={"origin": "https://evil.example", **preflight}
            )
        call = await _post_raw(proxy, {"origin": "https://app.example"})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
    assert call.headers["access-control-allow-origin"] == "https://app.example"
    assert '"delta":"for ' in call.text


def test_the_policy_never_shows_its_token():
    policy = ProxyPolicy(token=TOKEN, allow=("anthropic/*",))
    assert TOKEN not in repr(policy)
    assert policy.authorized(f"Bearer {TOKEN}") and policy.authorized(f"bearer  {TOKEN} ")
    assert not policy.authorized(f"Bearer {TOKEN}x") and not policy.authorized(None)


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"token": "", "allow": ("a/*",)}, "the proxy token is empty"),
        ({"token": "t", "allow": ()}, "the model allow-list is empty"),
        ({"token": "t", "allow": ("anthropic",)}, "needs the form provider/id"),
        ({"token": "t", "allow": ("a/*",), "max_body_bytes": 0}, "max_body_bytes must be"),
        ({"token": "t", "allow": ("a/*",), "keepalive_ms": 0}, "keepalive_ms must be positive"),
    ],
)
def test_a_bad_policy_is_refused_naming_the_setting(settings: dict[str, Any], error: str):
    with pytest.raises(ValueError, match=error):
        ProxyPolicy(**settings)


async def test_thinking_text_and_tool_calls_arrive_as_a_direct_call_gives_them(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think", ('{"query": ', '"pi", "n": 2}'))
    async with serve_proxy([reply, reply]) as proxy:
        direct = await pi_sdk.complete(proxy.model, prompt(), pi_sdk.StreamOptions(max_retries=0))
        events = stream_proxy(proxy.model, prompt(), proxy_url=proxy.url, auth_token=TOKEN)
        kinds = [event.type async for event in events]
        proxied = await events.result()
    assert direct.stop_reason == "toolUse"
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert "toolcall_delta" in kinds and "thinking_delta" in kinds
    assert [block.model_dump() for block in proxied.content] == [
        block.model_dump() for block in direct.content
    ]
    assert proxied.usage == direct.usage
    assert proxied.stop_reason == direct.stop_reason


async def test_stream_proxy_is_an_agent_stream_function(serve_proxy: Callable[..., Any]):
    async with serve_proxy([text_reply(API, "agent answer")]) as proxy:

        def via_proxy(model: Any, context: Any, options: Any) -> Any:
            return stream_proxy(model, context, options, proxy_url=proxy.url, auth_token=TOKEN)

        agent = Agent(model=proxy.model, stream_fn=via_proxy)
        await agent.prompt("hello")
    reply = agent.state.messages[-1]
    assert isinstance(reply, pi_sdk.AssistantMessage)
    assert reply.text == "agent answer"


def _no_retry(model: Any, context: Any, options: Any) -> Any:
    options.max_retries = 0
    return pi_sdk.stream(model, context, options)


async def test_each_request_is_logged_with_its_real_outcome(
    serve_proxy: Callable[..., Any], caplog: pytest.LogCaptureFixture
):
    """A vendor 429 inside a started stream is logged as that error, not as the 200."""
    error_body, _ = wire_for(API).http_error(429, "slow down")
    steps = [json_step(429, error_body), text_reply(API, "fine")]
    caplog.set_level(logging.INFO, logger="pi_sdk.serve")
    async with serve_proxy(steps, stream_fn=_no_retry) as proxy:
        limited = await _proxied(proxy, prompt())
        served = await _proxied(proxy, prompt())
        options = pi_sdk.StreamOptions(max_retries=0)
        refused = await stream_proxy(
            proxy.model, prompt(), options, proxy_url=proxy.url, auth_token="wrong"
        ).result()
    assert limited.stop_reason == "error" and served.text == "fine"
    assert refused.stop_reason == "error"
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pi_sdk.serve"]
    assert len(lines) == 3
    name = f"anthropic/{proxy.model.id}"
    assert lines[0][0] == "WARNING"
    assert re.fullmatch(
        rf"127\.0\.0\.1:\d+ {name} 200 error 429: 429 .*slow down · [\d.]+ s", lines[0][1]
    )
    assert lines[1][0] == "INFO"
    assert re.fullmatch(
        rf"127\.0\.0\.1:\d+ {name} 200 done \(stop\) 5 in · 3 out · [\d.]+ s", lines[1][1]
    )
    assert lines[2] == (
        "WARNING",
        lines[2][1].split(" ")[0] + " 401 refused: unauthorized: a valid bearer token is required",
    )
    assert all(TOKEN not in text and VENDOR_KEY not in text for _, text in lines)


async def test_a_body_that_arrives_too_slowly_is_refused_with_408(
    serve_proxy: Callable[..., Any],
):
    """A client sending its body a byte at a time gets 408 and its connection closed."""
    async with serve_proxy([text_reply(API)], body_timeout_ms=200) as proxy:
        host, port = proxy.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"POST /api/stream HTTP/1.1\r\nhost: proxy\r\ncontent-type: application/json\r\n"
            + f"authorization: Bearer {TOKEN}\r\ncontent-length: 100\r\n\r\n{{".encode()
        )
        await writer.drain()
        async with asyncio.timeout(10):  # a bound only a server without a body timeout exceeds
            reply = await reader.read()  # until the server closes the connection
        writer.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in head.lower()
    assert json.loads(body) == {
        "error": "request body too slow: it did not arrive whole within 0.2 s"
    }
    assert proxy.vendor.requests == []
