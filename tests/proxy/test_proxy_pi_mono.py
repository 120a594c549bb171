"""Our proxy client and server against pi-mono's own code (pi-agent-core 0.73.1 under node).

``node/pi_proxy.mjs`` runs pi's parts: a proxy endpoint that streams pi-ai's faux provider in
pi's proxy event shape, and pi-agent-core's ``streamProxy`` client. Our client must rebuild from
pi's events what pi's client rebuilds; pi's client must rebuild from our server what a direct
call gives. The npm packages come from ``node/package.json`` (pinned, with its lock file):
``npm ci --prefix tests/node``.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _support.loopback import sse_step
from _support.node_scripts import node_client, node_server
from _support.proxy import TOKEN, prompt, tool_use_reply

import pi_sdk
from pi_sdk.agent import stream_proxy

NODE_DIR = Path(__file__).parents[1] / "node"
SCRIPT = NODE_DIR / "pi_proxy.mjs"
_NODE = shutil.which("node")
_INSTALLED = (NODE_DIR / "node_modules" / "@mariozechner" / "pi-agent-core").is_dir()

pytestmark = pytest.mark.skipif(
    _NODE is None or not _INSTALLED,
    reason="pi-mono interop needs node and pi's npm packages: npm ci --prefix tests/node",
)

NODE_TOKEN = "node-side-token"
FAUX = pi_sdk.Model(id="faux-1", name="Faux Model", api="faux", provider="faux", reasoning=True)


@pytest.fixture(scope="module")
def pi_server() -> Iterator[str]:
    """pi's proxy endpoint (faux provider, pi's event stream) under node; yields its URL."""
    assert _NODE is not None
    with node_server(_NODE, SCRIPT, "serve", NODE_TOKEN) as url:
        yield url


async def _pi_client(url: str, token: str, request: dict[str, Any]) -> tuple[list[Any], Any]:
    """pi-agent-core's streamProxy against ``url``: (its events without partial, its message)."""
    assert _NODE is not None
    return await node_client(_NODE, SCRIPT, "client", url, token, request=request)


def _shape(kinds: list[str]) -> list[str]:
    """Event types with runs of one type folded (delta counts depend on chunking)."""
    return [kind for kind, _ in itertools.groupby(kinds)]


def _comparable(message: Any) -> dict[str, Any]:
    data = message if isinstance(message, dict) else message.model_dump(mode="json", by_alias=True)
    return {key: data.get(key) for key in ("content", "usage", "stopReason", "errorMessage")}


async def test_our_client_rebuilds_from_pis_events_what_pis_client_rebuilds(pi_server: str):
    context = prompt("What is the weather in Paris?")
    events = stream_proxy(FAUX, context, proxy_url=pi_server, auth_token=NODE_TOKEN)
    kinds: list[str] = []
    texts: dict[int, str] = {}
    async for event in events:
        kinds.append(event.type)
        if event.type in ("text_delta", "thinking_delta"):
            texts[event.content_index] = texts.get(event.content_index, "") + event.delta
    ours = await events.result()
    request = {"model": FAUX.model_dump(mode="json"), "context": context.model_dump(mode="json")}
    pi_events, pi_message = await _pi_client(pi_server, NODE_TOKEN, request)

    assert _comparable(ours) == _comparable(pi_message)
    assert ours.stop_reason == "toolUse"
    assert _shape(kinds) == _shape([event["type"] for event in pi_events])
    assert texts == {0: ours.content[0].thinking, 1: ours.content[1].text}  # type: ignore[union-attr]
    call = ours.content[2]
    assert isinstance(call, pi_sdk.ToolCall)
    assert call.arguments == {"city": "Paris", "units": "metric", "days": [1, 2]}


async def test_our_client_reports_a_refusal_in_pis_words(pi_server: str):
    context = prompt()
    ours = await stream_proxy(
        FAUX, context, pi_sdk.StreamOptions(max_retries=0), proxy_url=pi_server, auth_token="no"
    ).result()
    request = {"model": FAUX.model_dump(mode="json"), "context": context.model_dump(mode="json")}
    _, pi_message = await _pi_client(pi_server, "no", request)
    assert pi_message["errorMessage"] == "Proxy error: bad token"
    assert _comparable(ours) == _comparable(pi_message)


async def test_pis_client_rebuilds_from_our_server_what_a_direct_call_gives(
    serve_proxy: Callable[..., Any],
):
    reply = tool_use_reply("sig-think-42", ('{"city": ', '"Paris"}'))
    async with serve_proxy([reply, reply]) as proxy:
        context = prompt("weather?")
        direct_kinds: list[str] = []
        direct_stream = pi_sdk.stream(proxy.model, context, pi_sdk.StreamOptions(max_retries=0))
        async for event in direct_stream:
            direct_kinds.append(event.type)
        direct = await direct_stream.result()
        request = {
            "model": proxy.model.model_dump(mode="json"),
            "context": context.model_dump(mode="json"),
            "options": {"maxTokens": 1000, "temperature": 0.5},
        }
        pi_events, pi_message = await _pi_client(proxy.url, TOKEN, request)
    assert _comparable(pi_message) == _comparable(direct)
    assert pi_message["content"][0]["thinkingSignature"] == "sig-think-42"
    assert _shape([event["type"] for event in pi_events]) == _shape(direct_kinds)
    sent = json.loads(proxy.vendor.requests[1][2])
    assert (sent["max_tokens"], sent["temperature"]) == (1000, 0.5)


@pytest.mark.parametrize(
    ("token", "policy", "error"),
    [
        ("wrong", {}, "Proxy error: unauthorized: a valid bearer token is required"),
        (TOKEN, {"allow": ("openai/*",)}, "is not allowed on this proxy"),
    ],
)
async def test_pis_client_reports_our_refusals(
    serve_proxy: Callable[..., Any], token: str, policy: dict[str, Any], error: str
):
    async with serve_proxy([sse_step([])], **policy) as proxy:
        request = {"model": proxy.model.model_dump(mode="json"), "context": {"messages": []}}
        _, pi_message = await _pi_client(proxy.url, token, request)
    assert pi_message["stopReason"] == "error"
    assert pi_message["errorMessage"].startswith("Proxy error: ")
    assert error in pi_message["errorMessage"]
    assert proxy.vendor.requests == []
