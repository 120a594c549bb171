"""The proxy under test: ``proxy_app`` under uvicorn in front of a loopback vendor (tests/proxy)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pi_sdk
from _support.loopback import LoopbackServer, Step, model_at, sse_step
from _support.serving import uvicorn_serving
from _support.wire import Call, Calls, Text, Thinking, Tokens, wire_for
from pi_sdk.agent import ProxyPolicy, proxy_app

__all__ = [
    "API",
    "TOKEN",
    "USAGE",
    "VENDOR_KEY",
    "Proxy",
    "played",
    "prompt",
    "serving_proxy",
    "tool_use_reply",
]

API = "anthropic-messages"
TOKEN = "proxy-token-7f3a9c"
VENDOR_KEY = "sk-ant-vendor-key-0123456789abcdef"
USAGE: dict[str, Any] = {
    "input": 10,
    "output": 4,
    "cacheRead": 1,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0.01, "cacheWrite": 0, "total": 0.31},
}
"""A usage in pi's JSON (tokens; cost in USD), as a proxy or pi-messages server sends it."""


@dataclass
class Proxy:
    """A running proxy: its URL, the vendor behind it, the model it serves."""

    url: str
    vendor: LoopbackServer
    model: pi_sdk.Model


@asynccontextmanager
async def serving_proxy(
    steps: list[Step], *, stream_fn: Any = None, **policy: Any
) -> AsyncIterator[Proxy]:
    """Run a loopback vendor playing ``steps`` and the proxy in front of it (token ``TOKEN``).

    ``policy`` overrides :class:`ProxyPolicy` settings (default: ``allow=("anthropic/*",)``);
    the proxy resolves only the vendor's model, and calls it with ``stream_fn`` (default
    :func:`pi_sdk.stream`). The vendor key must be in the environment.
    """
    async with LoopbackServer(steps) as vendor:
        model = model_at(API, vendor.url)

        def resolve(provider: str, model_id: str) -> pi_sdk.Model:
            if (provider, model_id) != (model.provider, model.id):
                raise pi_sdk.ModelNotFoundError(f"unknown model {provider}/{model_id}")
            return model

        settings: dict[str, Any] = {"token": TOKEN, "allow": ("anthropic/*",)}
        settings.update(policy)
        app = proxy_app(ProxyPolicy(resolve_model=resolve, **settings), stream_fn=stream_fn)
        async with uvicorn_serving(app) as url:
            yield Proxy(url, vendor, model)


async def played(
    steps: list[Step], call: Callable[[str], Any]
) -> tuple[LoopbackServer, pi_sdk.AssistantMessage, list[Any]]:
    """Serve ``steps`` on a loopback server and read ``call(url)``, an event stream, to its end.

    Returns:
        The server (its requests), the final message and the events.
    """
    async with LoopbackServer(steps) as server:
        events = call(server.url)
        seen = [event async for event in events]
        return server, await events.result(), seen


def prompt(text: str = "hi") -> pi_sdk.Context:
    return pi_sdk.Context(messages=[pi_sdk.UserMessage(content=text)])


def tool_use_reply(signature: str, arguments: tuple[str, ...]) -> Step:
    """A vendor reply of thinking (with ``signature``), text, then a tool call of ``arguments``.

    Usage: 11 input, 7 output and 2 cache-read tokens.
    """
    blocks = [
        Thinking(("Weather ", "needs a tool."), signature=signature),
        Text(("Looking ", "it up.")),
        Calls((Call("toolu_9", "get_weather", arguments),)),
    ]
    body, terminal = wire_for(API).events(blocks, Tokens(input=11, output=7, cache_read=2))
    return sse_step(body + terminal)
