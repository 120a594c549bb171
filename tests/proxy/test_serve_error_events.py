"""Every error event ``pi-sdk serve`` sends carries pi's usage JSON: camelCase names, all of them.

An error event reaches the client from three places in the server: the call's own ``error``
event (a vendor error), a stream function that raised before streaming, and one that raised
after it started. On both routes (the proxy's ``/api/stream`` and ``pi-messages``'
``/v1/messages``) the event's ``usage`` must be pi's ``Usage`` JSON (pi-ai 1.6 ``Usage``:
``input``, ``output``, ``cacheRead``, ``cacheWrite``, ``totalTokens``, ``cost`` with ``input``,
``output``, ``cacheRead``, ``cacheWrite``, ``total``), as pi_sdk writes a ``Usage`` itself:
pi's clients read those names and no others.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from _support.loopback import json_step, text_reply
from _support.proxy import API, TOKEN, prompt
from _support.wire import wire_for

import pi_sdk
from pi_sdk.events import StartEvent
from pi_sdk.types import Usage

PI_USAGE_KEYS = {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
PI_COST_KEYS = {"input", "output", "cacheRead", "cacheWrite", "total"}


def _raises_at_once(model: Any, context: Any, options: Any) -> Any:
    raise RuntimeError("no route to the vendor")


def _raises_midway(model: pi_sdk.Model, context: Any, options: Any) -> Any:
    async def events() -> AsyncIterator[Any]:
        partial = pi_sdk.AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        yield StartEvent(partial=partial)
        raise RuntimeError("the vendor went away")

    return events()


SOURCES: dict[str, tuple[Callable[..., Any] | None, str]] = {
    "vendor error": (None, "400"),
    "raised at once": (_raises_at_once, "no route to the vendor"),
    "raised midway": (_raises_midway, "the vendor went away"),
}


async def _error_frame(proxy: Any, route: str) -> dict[str, Any]:
    context = prompt().model_dump(mode="json", by_alias=True)
    if route == "/api/stream":
        body: dict[str, Any] = {
            "model": {"provider": proxy.model.provider, "id": proxy.model.id},
            "context": context,
        }
    else:
        body = {"model": f"{proxy.model.provider}/{proxy.model.id}", "context": context}
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(timeout=30) as client:
        response = await client.post(f"{proxy.url}{route}", json=body, headers=headers)
    assert response.status_code == 200
    lines = response.text.splitlines()
    frames = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    assert frames[-1]["type"] == "error", frames
    assert [f["type"] for f in frames].count("error") == 1
    return frames[-1]


@pytest.mark.parametrize("route", ["/api/stream", "/v1/messages"])
@pytest.mark.parametrize("source", list(SOURCES))
async def test_an_error_event_s_usage_has_pi_s_names(
    serve_proxy: Callable[..., Any], route: str, source: str
) -> None:
    stream_fn, needle = SOURCES[source]
    error_body, _ = wire_for(API).http_error(400, "bad request")
    async with serve_proxy([json_step(400, error_body)], stream_fn=stream_fn) as proxy:
        frame = await _error_frame(proxy, route)
    assert frame["reason"] == "error"
    assert needle in frame["errorMessage"]
    usage = frame["usage"]
    assert set(usage) == PI_USAGE_KEYS and set(usage["cost"]) == PI_COST_KEYS
    # The same JSON pi_sdk writes for a Usage, and read back as the same Usage.
    assert usage == Usage().model_dump(mode="json", by_alias=True, exclude_none=True)
    assert Usage.model_validate(usage) == Usage()


@pytest.mark.parametrize("route", ["/api/stream", "/v1/messages"])
async def test_a_done_event_s_usage_has_the_same_names(
    serve_proxy: Callable[..., Any], route: str
) -> None:
    async with serve_proxy([text_reply(API)]) as proxy:
        context = prompt().model_dump(mode="json", by_alias=True)
        model = {"provider": proxy.model.provider, "id": proxy.model.id}
        body: dict[str, Any] = {
            "model": model if route == "/api/stream" else "/".join(model.values()),
            "context": context,
        }
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(timeout=30) as client:
            response = await client.post(f"{proxy.url}{route}", json=body, headers=headers)
    frames = [json.loads(x[6:]) for x in response.text.splitlines() if x.startswith("data: ")]
    usage = frames[-1]["usage"]
    assert frames[-1]["type"] == "done"
    # Optional fields (cacheWrite1h) may follow, in pi's spelling too: no snake_case name.
    assert PI_USAGE_KEYS <= set(usage) and set(usage["cost"]) == PI_COST_KEYS
    assert not [name for name in [*usage, *usage["cost"]] if "_" in name]
    assert usage["input"] > 0 and usage["totalTokens"] == usage["input"] + usage["output"]
