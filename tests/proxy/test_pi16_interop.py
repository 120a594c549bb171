"""pi 1.6 against pi-sdk, both ways, on the proxy and ``pi-messages`` protocols (Node 22).

``node/pi16_proxy.mjs`` runs pi's parts under Node >= 22.19 (``_support/node22.py``): a server
built from pi-ai 1.6's exports (its faux provider streamed in pi-agent-core 1.6's proxy shape
and in pi-ai's ``PiMessagesEvent`` shape), pi-agent-core 1.6's ``streamProxy`` and pi-ai 1.6's
``pi-messages`` client. Our clients must rebuild from pi's server what pi's clients rebuild;
pi's clients must rebuild from ``pi-sdk serve`` (in front of a loopback vendor) what a direct
call gives. Skipped, with one message, where Node 22 or the packages are absent.
"""

from __future__ import annotations

import itertools
import json
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _support import node22
from _support.node_scripts import node_client, node_server
from _support.proxy import TOKEN, tool_use_reply

import pi_sdk
from pi_sdk.agent import stream_proxy

pytestmark = node22.needs_pi16

SCRIPT = node22.NODE_DIR / "pi16_proxy.mjs"
NODE_TOKEN = "pi16-node-token"
FAUX = pi_sdk.Model(id="faux-1", name="Faux", api="faux", provider="faux", reasoning=True)
TOOL = pi_sdk.Tool(
    name="get_weather",
    description="The weather in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
KEPT = ("content", "usage", "stopReason", "errorMessage", "providerThinkingLevel")


def _context() -> pi_sdk.Context:
    return pi_sdk.Context(
        system_prompt="Answer briefly.",
        tools=[TOOL],
        messages=[pi_sdk.UserMessage(content="What is the weather in Paris?", timestamp=1)],
    )


@pytest.fixture(scope="module")
def pi16_server() -> Iterator[str]:
    """pi 1.6's server (faux provider, both protocols) under Node 22; yields its URL."""
    binary = node22.node22()
    assert binary is not None
    with node_server(binary, SCRIPT, "serve", NODE_TOKEN) as url:
        yield url


def _received(url: str) -> list[Any]:
    with urllib.request.urlopen(f"{url}/requests", timeout=30) as response:  # noqa: S310 - loopback
        return json.loads(response.read())


async def _pi_client(
    kind: str, url: str, token: str, request: dict[str, Any]
) -> tuple[list[Any], Any]:
    """pi's ``proxy-client`` or ``messages-client`` against ``url``: (its events, its message)."""
    binary = node22.node22()
    assert binary is not None
    return await node_client(binary, SCRIPT, kind, url, token, request=request)


def _request(model: pi_sdk.Model, context: pi_sdk.Context, **options: Any) -> dict[str, Any]:
    return {
        "model": model.model_dump(mode="json", by_alias=True, exclude_none=True),
        "context": context.model_dump(mode="json", by_alias=True, exclude_none=True),
        "options": options,
    }


def _comparable(message: Any, keys: tuple[str, ...] = KEPT) -> dict[str, Any]:
    data = message if isinstance(message, dict) else message.model_dump(mode="json", by_alias=True)
    return {key: data.get(key) for key in keys}


def _shape(kinds: list[str]) -> list[str]:
    """Event types with runs folded (delta counts depend on chunking)."""
    return [kind for kind, _ in itertools.groupby(kinds)]


async def _ours(stream: pi_sdk.AssistantMessageEventStream) -> tuple[list[str], Any]:
    kinds = [event.type async for event in stream]
    return kinds, await stream.result()


# --- pi-sdk's clients against pi 1.6's server -----------------------------------------------


async def test_our_proxy_client_rebuilds_from_pi16_events_what_pis_client_rebuilds(
    pi16_server: str,
):
    kinds, ours = await _ours(
        stream_proxy(FAUX, _context(), proxy_url=pi16_server, auth_token=NODE_TOKEN)
    )
    pi_events, pi_message = await _pi_client(
        "proxy-client", pi16_server, NODE_TOKEN, _request(FAUX, _context())
    )
    assert _comparable(ours) == _comparable(pi_message)
    assert ours.provider_thinking_level == "high"
    assert ours.content[0].thinking_signature == "faux-sig-1"  # type: ignore[union-attr]
    assert _shape(kinds) == _shape([event["type"] for event in pi_events])


async def test_our_pi_messages_provider_rebuilds_what_pi_ais_client_rebuilds(pi16_server: str):
    model = pi_sdk.Model(
        id="faux-1", api="pi-messages", provider="gw", reasoning=True, base_url=f"{pi16_server}/v1"
    )
    options = pi_sdk.StreamOptions(api_key=NODE_TOKEN, reasoning="high")
    kinds, ours = await _ours(pi_sdk.stream(model, _context(), options))
    ours_sent = _received(pi16_server)[-1]
    pi_events, pi_message = await _pi_client(
        "messages-client",
        f"{pi16_server}/v1",
        NODE_TOKEN,
        _request(model, _context(), reasoning="high"),
    )
    pi_sent = _received(pi16_server)[-1]
    keys = (*KEPT, "responseId", "responseModel", "api", "provider", "model")
    assert _comparable(ours, keys) == _comparable(pi_message, keys)
    assert (ours.response_id, ours.response_model) == ("resp_faux_1", "faux-1-2026")
    assert _shape(kinds) == _shape([event["type"] for event in pi_events])
    assert ours_sent == pi_sent  # the same request: model id, transcript context, options


async def test_pis_server_refusal_reads_the_same_in_our_client(pi16_server: str):
    model = pi_sdk.Model(
        id="faux-1", api="pi-messages", provider="gw", base_url=f"{pi16_server}/v1"
    )
    options = pi_sdk.StreamOptions(api_key="wrong", max_retries=0)
    ours = await pi_sdk.stream(model, _context(), options).result()
    _, pi_message = await _pi_client(
        "messages-client", f"{pi16_server}/v1", "wrong", _request(model, _context())
    )
    assert (
        ours.error_message
        == pi_message["errorMessage"]
        == "401 Unauthorized: bad token (unauthorized)"
    )
    proxied = await stream_proxy(
        FAUX,
        _context(),
        pi_sdk.StreamOptions(max_retries=0),
        proxy_url=pi16_server,
        auth_token="no",
    ).result()
    assert proxied.error_message == "Proxy error: bad token"


# --- pi 1.6's clients against pi-sdk serve ---------------------------------------------------


def _vendor_system_and_tools(proxy: Any) -> tuple[str, list[str]]:
    sent = json.loads(proxy.vendor.requests[-1][2])
    system = sent["system"] if isinstance(sent["system"], str) else sent["system"][0]["text"]
    return system, [tool["name"] for tool in sent["tools"]]


async def test_pis_stream_proxy_gets_from_our_server_what_a_direct_call_gives(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think-16", ('{"city": ', '"Paris"}'))
    async with serve_proxy([reply, reply]) as proxy:
        kinds, direct = await _ours(pi_sdk.stream(proxy.model, _context()))
        request = _request(proxy.model, _context(), maxTokens=1000, disableContinuation=True)
        pi_events, pi_message = await _pi_client("proxy-client", proxy.url, TOKEN, request)
        assert _vendor_system_and_tools(proxy) == ("Answer briefly.", ["get_weather"])
    assert _comparable(pi_message) == _comparable(direct)
    assert pi_message["content"][0]["thinkingSignature"] == "sig-think-16"
    assert _shape([event["type"] for event in pi_events]) == _shape(kinds)
    [end] = [event for event in pi_events if event["type"] == "toolcall_end"]
    assert end["toolCall"]["arguments"] == {"city": "Paris"}


async def test_pi_ais_pi_messages_client_gets_from_our_server_what_a_direct_call_gives(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think-17", ('{"city": "Oslo"}',))
    async with serve_proxy([reply, reply]) as proxy:
        kinds, direct = await _ours(pi_sdk.stream(proxy.model, _context()))
        model = pi_sdk.Model(
            id=f"{proxy.model.provider}/{proxy.model.id}", api="pi-messages", provider="pisdk"
        )
        request = _request(model, _context(), maxTokens=1000)
        pi_events, pi_message = await _pi_client("messages-client", proxy.url, TOKEN, request)
        assert _vendor_system_and_tools(proxy) == ("Answer briefly.", ["get_weather"])
    keys = (*KEPT, "responseId")
    assert _comparable(pi_message, keys) == _comparable(direct, keys)
    assert pi_message["content"][0]["thinkingSignature"] == "sig-think-17"
    assert _shape([event["type"] for event in pi_events]) == _shape(kinds)


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("proxy-client", "Proxy error: unauthorized: a valid bearer token is required"),
        (
            "messages-client",
            "401 Unauthorized: unauthorized: a valid bearer token is required (unauthorized)",
        ),
    ],
)
async def test_pi16_clients_report_our_refusals_in_their_words(
    serve_proxy: Callable[..., Any], kind: str, error: str
):
    async with serve_proxy([tool_use_reply("s", ("{}",))]) as proxy:
        model = proxy.model
        if kind == "messages-client":
            model = pi_sdk.Model(id=f"anthropic/{model.id}", api="pi-messages", provider="pisdk")
        _, pi_message = await _pi_client(kind, proxy.url, "wrong", _request(model, _context()))
        assert proxy.vendor.requests == []
    assert (pi_message["stopReason"], pi_message["errorMessage"]) == ("error", error)
