"""Every built-in provider honours HTTP(S)_PROXY, ALL_PROXY and NO_PROXY (issue 31, item 13).

Providers give their HTTP client a transport of their own (``PooledTransport``), and httpx2 then
reads no proxy from the environment: a loopback proxy saw 0 requests. Each test runs a real
call through a forward proxy on 127.0.0.1 (:mod:`_support.forward_proxy`) to a host name that
does not resolve (``vendor.test``): only a request sent through the proxy can succeed.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from _support.forward_proxy import ForwardProxy, clear_proxy_variables
from _support.loopback import APIS, LoopbackServer, model_at, text_reply

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

Env = Callable[[str, str], dict[str, str]]
"""``env(proxy_url, vendor_port)``: the variables a test sets."""


@pytest.fixture(autouse=True)
def _no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_proxy_variables(monkeypatch)


async def _call(model: pi_sdk.Model) -> pi_sdk.AssistantMessage:
    context = Context(messages=[UserMessage(content="hi")])
    options = StreamOptions(api_key="proxy-test-key-1", max_retries=0)
    return await pi_sdk.complete(model, context, options)


async def _through(
    monkeypatch: pytest.MonkeyPatch,
    api: str,
    env: Env,
    *,
    host: str = "vendor.test",
    credentials: str | None = None,
) -> tuple[pi_sdk.AssistantMessage, ForwardProxy, LoopbackServer]:
    """One call of ``api`` to ``http://HOST:PORT`` (the vendor's port) with ``env`` set."""
    async with LoopbackServer([text_reply(api, "Hello")]) as vendor:
        port = vendor.url.rsplit(":", 1)[1]
        async with ForwardProxy(vendor.url, credentials=credentials) as proxy:
            for name, value in env(proxy.url, port).items():
                monkeypatch.setenv(name, value)
            message = await _call(model_at(api, f"http://{host}:{port}"))
    return message, proxy, vendor


@pytest.mark.parametrize("api", APIS)
async def test_http_proxy_carries_every_provider_s_calls(
    api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    message, proxy, vendor = await _through(monkeypatch, api, lambda url, _: {"HTTP_PROXY": url})
    assert message.stop_reason == "stop", message.error_message
    assert [b.text for b in message.content if isinstance(b, pi_sdk.TextContent)] == ["Hello"]
    [asked] = proxy.targets
    assert asked.split(" ")[1].startswith("http://vendor.test:")
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
    def env(url: str, port: str) -> dict[str, str]:
        return {"HTTP_PROXY": url, "NO_PROXY": no_proxy.format(port=port)}

    message, proxy, vendor = await _through(
        monkeypatch, "anthropic-messages", env, host="127.0.0.1"
    )
    assert message.stop_reason == "stop", message.error_message
    assert proxy.targets == []
    assert len(vendor.requests) == 1


@pytest.mark.parametrize(
    ("api", "env", "credentials"),
    [
        # lower-case names count too; NO_PROXY entries for other ports and hosts do not apply
        (
            "openai-completions",
            lambda url, _: {"http_proxy": url, "no_proxy": "127.0.0.1:1,endor.test,other.test"},
            None,
        ),
        # ALL_PROXY when the scheme has none; its user:password@ is sent to the proxy
        (
            "mistral-conversations",
            lambda url, _: {"ALL_PROXY": url.replace("://", "://me:proxy-pass-123@")},
            "me:proxy-pass-123",
        ),
    ],
    ids=["no-proxy-elsewhere", "all-proxy-with-credentials"],
)
async def test_the_proxy_is_used(
    api: str, env: Env, credentials: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    message, proxy, _ = await _through(monkeypatch, api, env, credentials=credentials)
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
    def env(url: str, _: str) -> dict[str, str]:
        return {"HTTP_PROXY": url, "REQUEST_METHOD": "GET"}  # httpoxy: a CGI request's header

    message, proxy, _ = await _through(monkeypatch, "anthropic-messages", env, host="127.0.0.1")
    assert message.stop_reason == "stop", message.error_message
    assert proxy.targets == []
