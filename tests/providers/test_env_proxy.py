"""Every built-in provider honours HTTP(S)_PROXY, ALL_PROXY and NO_PROXY (issue 31, item 13).

Providers give their HTTP client a transport of their own (``PooledTransport``), and httpx2 then
reads no proxy from the environment: a loopback proxy saw 0 requests. Each test runs a real
call through a forward proxy on 127.0.0.1 (:mod:`_support.forward_proxy`) to a host name that
does not resolve (``vendor.test``): only a request sent through the proxy can succeed.
"""

from __future__ import annotations

import pytest
from _support.forward_proxy import ForwardProxy
from _support.loopback import APIS, LoopbackServer, model_at, text_reply

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD")


@pytest.fixture(autouse=True)
def _no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


async def _call(model: pi_sdk.Model) -> pi_sdk.AssistantMessage:
    context = Context(messages=[UserMessage(content="hi")])
    return await pi_sdk.complete(
        model, context, StreamOptions(api_key="proxy-test-key-1", max_retries=0)
    )


def _at(api: str, server: LoopbackServer, host: str, scheme: str = "http") -> pi_sdk.Model:
    port = server.url.rsplit(":", 1)[1]
    return model_at(api, f"{scheme}://{host}:{port}")


@pytest.mark.parametrize("api", APIS)
async def test_http_proxy_carries_every_provider_s_calls(
    api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with LoopbackServer([text_reply(api, "Hello")]) as vendor:
        async with ForwardProxy(vendor.url) as proxy:
            monkeypatch.setenv("HTTP_PROXY", proxy.url)
            message = await _call(_at(api, vendor, "vendor.test"))
            port = vendor.url.rsplit(":", 1)[1]
    assert message.stop_reason == "stop", message.error_message
    assert [b.text for b in message.content if isinstance(b, pi_sdk.TextContent)] == ["Hello"]
    [asked] = proxy.targets
    assert asked.split(" ")[1].startswith(f"http://vendor.test:{port}/")
    assert len(vendor.requests) == 1


@pytest.mark.parametrize("api", APIS)
async def test_https_proxy_is_asked_for_a_tunnel(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url.removeprefix("http://"))  # no scheme: http
        model = model_at(api, "https://vendor.test:8443")
        message = await _call(model)
    assert proxy.targets == ["CONNECT vendor.test:8443"]
    assert message.stop_reason == "error"  # this proxy refuses tunnels (403)


@pytest.mark.parametrize(
    "no_proxy", ["127.0.0.1", "localhost,127.0.0.1:{port}", ".example.com, 127.0.0.1", "*"]
)
async def test_no_proxy_hosts_connect_directly(
    no_proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = "anthropic-messages"
    async with LoopbackServer([text_reply(api)]) as vendor:
        async with ForwardProxy(vendor.url) as proxy:
            port = vendor.url.rsplit(":", 1)[1]
            monkeypatch.setenv("HTTP_PROXY", proxy.url)
            monkeypatch.setenv("NO_PROXY", no_proxy.format(port=port))
            message = await _call(model_at(api, vendor.url))
    assert message.stop_reason == "stop", message.error_message
    assert proxy.targets == []
    assert len(vendor.requests) == 1


async def test_no_proxy_with_another_port_or_host_still_uses_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = "openai-completions"
    async with LoopbackServer([text_reply(api)]) as vendor:
        async with ForwardProxy(vendor.url) as proxy:
            monkeypatch.setenv("http_proxy", proxy.url)  # lower-case names count too
            monkeypatch.setenv("no_proxy", "127.0.0.1:1,endor.test,othervendor.test")
            message = await _call(_at(api, vendor, "vendor.test"))
    assert message.stop_reason == "stop", message.error_message
    assert len(proxy.targets) == 1


async def test_all_proxy_applies_when_the_scheme_has_none_and_credentials_are_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = "mistral-conversations"
    async with LoopbackServer([text_reply(api)]) as vendor:
        async with ForwardProxy(vendor.url, credentials="me:proxy-pass-123") as proxy:
            monkeypatch.setenv("ALL_PROXY", proxy.url.replace("://", "://me:proxy-pass-123@"))
            message = await _call(_at(api, vendor, "vendor.test"))
    assert message.stop_reason == "stop", message.error_message
    assert len(proxy.targets) == 1


async def test_a_socks_proxy_without_socksio_names_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    try:
        import socksio  # noqa: F401  # pyright: ignore[reportMissingImports]
    except ImportError:
        pass
    else:
        pytest.skip("socksio is installed: the SOCKS path is the transport's own")
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")
    message = await _call(model_at("anthropic-messages", "http://vendor.test:1"))
    assert message.stop_reason == "error"
    assert "socksio" in (message.error_message or "")


async def test_the_cgi_rule_ignores_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    api = "anthropic-messages"
    async with LoopbackServer([text_reply(api)]) as vendor:
        async with ForwardProxy(vendor.url) as proxy:
            monkeypatch.setenv("HTTP_PROXY", proxy.url)
            monkeypatch.setenv("REQUEST_METHOD", "GET")  # httpoxy: a CGI request's header
            message = await _call(model_at(api, vendor.url))
    assert message.stop_reason == "stop", message.error_message
    assert proxy.targets == []
