"""pi-sdk serve's upstream calls go through the environment's proxy (issue 31, item 13).

The server calls vendors with the providers' clients, which read ``HTTP_PROXY``/``NO_PROXY``
(:mod:`pi_sdk._kit.env_proxy`): here the vendor's host (``vendor.test``) resolves only through a
loopback forward proxy, and ``NO_PROXY`` keeps the client-to-server hop on 127.0.0.1 direct.
"""

from __future__ import annotations

import pytest
from _support.forward_proxy import ForwardProxy, clear_proxy_variables
from _support.loopback import LoopbackServer, model_at, text_reply
from _support.proxy import API, TOKEN, VENDOR_KEY, prompt
from _support.serving import uvicorn_serving

import pi_sdk
from pi_sdk.agent import ProxyPolicy, proxy_app, stream_proxy


async def test_serve_calls_the_vendor_through_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", VENDOR_KEY)
    clear_proxy_variables(monkeypatch)
    async with LoopbackServer([text_reply(API, "Hi there")]) as vendor:
        port = vendor.url.rsplit(":", 1)[1]
        model = model_at(API, f"http://vendor.test:{port}")
        policy = ProxyPolicy(
            resolve_model=lambda provider, model_id: model, token=TOKEN, allow=("anthropic/*",)
        )
        async with ForwardProxy(vendor.url) as forward:
            monkeypatch.setenv("HTTP_PROXY", forward.url)
            monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
            async with uvicorn_serving(proxy_app(policy)) as url:
                events = stream_proxy(
                    model,
                    prompt(),
                    pi_sdk.StreamOptions(max_retries=0),
                    proxy_url=url + "/",
                    auth_token=TOKEN,
                )
                message = await events.result()
    assert message.stop_reason == "stop", message.error_message
    assert [b.text for b in message.content if isinstance(b, pi_sdk.TextContent)] == ["Hi there"]
    assert [t.split(" ")[1].split("/")[2] for t in forward.targets] == [f"vendor.test:{port}"]
    assert len(vendor.requests) == 1
