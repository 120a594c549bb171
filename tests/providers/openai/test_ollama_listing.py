"""Ollama's model list, request by request: ``/api/tags``, then ``/api/show`` four at a time.

The fetch runs on the real :class:`pi_sdk_openai._listing_http.Lister` over an in-process
``httpx2.MockTransport`` whose handler answers each request after a delay, so the test sees how
many ``/api/show`` requests are in flight together, the order they were sent in and the order
the models come back in (pi-sdk-openai's module doc: "``POST <server>/api/show`` per model (four
at a time)").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from pi_sdk_openai import ModelLister, openai_compatible_provider
from pi_sdk_openai import _listing_http as listing_http
from pi_sdk_openai._listing_http import ListingError

from pi_sdk.provider import FetchContext, FetchedModels

SERVER = "http://ollama.test:11434"
SHOWN_AT_ONCE = 4  # the module doc's "four at a time"


def _show(name: str) -> dict[str, Any]:
    return {
        "model_info": {"general.architecture": "llama", "llama.context_length": 4096 + len(name)},
        "capabilities": ["completion", "tools"],
    }


@dataclass
class FakeOllama:
    """Answers ``/api/tags`` with ``names``, ``/api/show`` per name; counts what is in flight."""

    names: list[str]
    gone: set[str] = field(default_factory=set[str])
    """Names ``/api/show`` answers 404 for (removed since ``/api/tags`` answered)."""
    show_status: int = 200
    tags_status: int = 200
    in_flight: int = 0
    peak: int = 0
    shown: list[str] = field(default_factory=list[str])
    requests: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append((request.method, str(request.url)))
        if request.url.path == "/api/tags":
            if self.tags_status == 304:
                return httpx2.Response(304, headers={"etag": '"tags-1"'})
            models = [{"name": name, "model": name} for name in self.names]
            return httpx2.Response(200, json={"models": models}, headers={"etag": '"tags-2"'})
        assert (request.method, request.url.path) == ("POST", "/api/show"), request
        name = json.loads(request.content)["model"]
        self.shown.append(name)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            # Later names answer sooner: the answers come back out of order.
            await asyncio.sleep(0.002 * (len(self.names) - self.names.index(name)))
        finally:
            self.in_flight -= 1
        if name in self.gone:
            return httpx2.Response(404, json={"error": f"model '{name}' not found"})
        if self.show_status != 200:
            return httpx2.Response(self.show_status, json={"error": "out of memory"})
        return httpx2.Response(200, json=_show(name))


@pytest.fixture
def mock_listing(monkeypatch: pytest.MonkeyPatch) -> list[FakeOllama]:
    """Route the listing client through the :class:`FakeOllama` appended to the returned list."""
    fakes: list[FakeOllama] = []

    @asynccontextmanager
    async def listing_client(context: FetchContext) -> AsyncGenerator[listing_http.Lister]:
        transport = httpx2.MockTransport(fakes[-1].handle)
        async with httpx2.AsyncClient(transport=transport) as client:
            yield listing_http.Lister(client, context)

    monkeypatch.setattr(listing_http, "listing_client", listing_client)
    return fakes


async def _fetch(fakes: list[FakeOllama], fake: FakeOllama, **context: Any) -> FetchedModels:
    fakes.append(fake)
    provider = openai_compatible_provider("ollama", f"{SERVER}/v1", models_api="ollama")
    lister = provider.fetch_models
    assert isinstance(lister, ModelLister)
    return await lister(FetchContext(provider=provider, **context))


@pytest.mark.parametrize("count", [1, 3, 4, 5, 9, 17])
async def test_show_requests_go_four_at_a_time_and_models_keep_the_tags_order(
    mock_listing: list[FakeOllama], count: int
) -> None:
    names = [f"model-{i:02d}:latest" for i in range(count)]
    fake = FakeOllama(names)
    fetched = await _fetch(mock_listing, fake)
    assert fake.peak == min(count, SHOWN_AT_ONCE)  # never more, and not fewer when there are more
    assert sorted(fake.shown) == names  # each model shown once
    assert fetched.models is not None
    assert [m.id for m in fetched.models] == names  # the server's order, not the answers' order
    assert [m.context_window for m in fetched.models] == [4096 + len(n) for n in names]
    assert all(m.base_url == f"{SERVER}/v1" and m.provider == "ollama" for m in fetched.models)
    assert fetched.etag == '"tags-2"'
    assert fake.requests[0] == ("GET", f"{SERVER}/api/tags")  # the server without /v1
    assert {r for r in fake.requests[1:]} == {("POST", f"{SERVER}/api/show")}


async def test_a_model_removed_before_its_show_is_left_out_the_rest_in_order(
    mock_listing: list[FakeOllama],
) -> None:
    names = [f"m{i}" for i in range(7)]
    fake = FakeOllama(names, gone={"m1", "m5"})
    fetched = await _fetch(mock_listing, fake)
    assert fetched.models is not None
    assert [m.id for m in fetched.models] == ["m0", "m2", "m3", "m4", "m6"]
    assert fake.peak == SHOWN_AT_ONCE


async def test_a_name_listed_twice_is_shown_and_listed_once(
    mock_listing: list[FakeOllama],
) -> None:
    fake = FakeOllama(["a", "b", "a", "c", "b"])
    fetched = await _fetch(mock_listing, fake)
    assert fetched.models is not None
    assert [m.id for m in fetched.models] == ["a", "b", "c"]
    assert sorted(fake.shown) == ["a", "b", "c"]


async def test_a_not_modified_tags_list_asks_for_no_show(mock_listing: list[FakeOllama]) -> None:
    fake = FakeOllama(["a", "b"], tags_status=304)
    fetched = await _fetch(mock_listing, fake, etag='"tags-1"', last_modified="Mon")
    assert fetched.models is None
    assert (fetched.etag, fetched.last_modified) == ('"tags-1"', "Mon")
    assert fake.requests == [("GET", f"{SERVER}/api/tags")]


async def test_a_failed_show_fails_the_fetch_naming_its_request(
    mock_listing: list[FakeOllama],
) -> None:
    fake = FakeOllama(["a", "b", "c"], show_status=500)
    with pytest.raises(ListingError, match=rf"^POST {SERVER}/api/show: HTTP 500"):
        await _fetch(mock_listing, fake)


async def test_a_provider_without_a_base_url_is_refused_before_any_request(
    mock_listing: list[FakeOllama],
) -> None:
    fake = FakeOllama(["a"])
    mock_listing.append(fake)
    provider = openai_compatible_provider("ollama", "", models_api="ollama")
    lister = provider.fetch_models
    assert isinstance(lister, ModelLister)
    with pytest.raises(ListingError, match="provider 'ollama' has no base URL to list from"):
        await lister(FetchContext(provider=provider))
    assert fake.requests == []


async def test_a_signal_aborted_before_the_fetch_sends_nothing(
    mock_listing: list[FakeOllama],
) -> None:
    import pi_sdk

    controller = pi_sdk.AbortController()
    controller.abort()
    fake = FakeOllama(["a"])
    with pytest.raises(ListingError, match="^aborted$"):
        await _fetch(mock_listing, fake, signal=controller.signal)
    assert fake.requests == []


async def test_a_models_api_read_from_a_config_file_lists_through_ollama(
    mock_listing: list[FakeOllama],
) -> None:
    # A caller's settings come from JSON: equal to the literal "ollama", another string object.
    models_api = json.loads('{"models_api": "ollama"}')["models_api"]
    mock_listing.append(FakeOllama(["a", "b"]))
    provider = openai_compatible_provider("ollama", f"{SERVER}/v1", models_api=models_api)
    lister = provider.fetch_models
    assert isinstance(lister, ModelLister)
    fetched = await lister(FetchContext(provider=provider))
    assert fetched.models is not None
    assert [m.id for m in fetched.models] == ["a", "b"]
    assert mock_listing[-1].requests == [
        ("GET", f"{SERVER}/api/tags"),
        ("POST", f"{SERVER}/api/show"),
        ("POST", f"{SERVER}/api/show"),
    ]
