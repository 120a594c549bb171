"""Model lists of OpenAI-compatible servers, against loopback servers speaking each shape.

Every server shape pi-sdk-openai reads (OpenAI, vLLM, llama.cpp, LM Studio, Ollama), the
conditional round trip (etag / last-modified: the second refresh gets a 304 and keeps the list),
the offline store, ``force``, and the three failure modes: a server that is down, one that is
slow, one that answers garbage. The rest of the collection keeps working, and an error names the
provider and the URL and never the key.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pi_sdk_openai
import pytest
from _support.loopback import LoopbackServer, Step
from _support.model_servers import ETAG, LAST_MODIFIED, SHAPES, ModelServer, closed_port_url
from pi_sdk_openai import ModelLister, openai_compatible_provider
from pi_sdk_openai._listing_http import ListingError

import pi_sdk
from pi_sdk.provider import FetchContext

KEY = "sk-test-SECRET-listing-0123456789"

MODELS_API = {"openai": "openai", "vllm": "openai", "llama.cpp": "openai",
              "lm-studio": "lm-studio", "ollama": "ollama"}  # fmt: skip

EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    # per shape: model id -> the fields the server said (beyond id, api, provider, base_url)
    "openai": {"gpt-4o-mini": {}, "text-embedding-3-small": {}},
    "vllm": {
        "Qwen/Qwen3-8B": {"context_window": 32768},
        "gpt-4o-mini": {"context_window": 4096},
    },
    "llama.cpp": {"gemma-3-4b-it-Q4_K_M.gguf": {"context_window": 131072}},
    "lm-studio": {
        "qwen2-vl-7b-instruct": {"context_window": 32768, "input": ["text", "image"]},
        "meta-llama-3.1-8b-instruct": {"context_window": 131072},
    },
    "ollama": {
        "llama3.2:latest": {"context_window": 131072, "reasoning": False, "input": ["text"]},
        "qwen3:8b": {"context_window": 8192, "reasoning": True, "input": ["text"]},
        "gemma3:4b": {"context_window": 131072, "reasoning": False, "input": ["text", "image"]},
    },
}
BASE = {"id", "api", "provider", "base_url"}


def _provider(shape: str, server: LoopbackServer, **kwargs: Any) -> pi_sdk.Provider:
    return openai_compatible_provider(
        shape.replace(".", "-"), f"{server.url}/v1", models_api=MODELS_API[shape], **kwargs
    )


@pytest.mark.parametrize("shape", SHAPES)
async def test_each_shape_lists_what_its_server_says(shape: str) -> None:
    fake = ModelServer(shape)
    async with fake.server() as server:
        provider = _provider(shape, server, api_key=KEY)
        models = pi_sdk.Models([provider])
        result = await models.refresh()
        url = server.url
    assert result.ok and result.sources == {provider.id: "server"}
    listed = {m.id: m for m in models.models(provider.id)}
    assert set(listed) == set(EXPECTED[shape])  # embedding models left out where they say so
    for model_id, said in EXPECTED[shape].items():
        model = listed[model_id]
        assert model.api == "openai-completions"
        assert model.base_url == f"{url}/v1"
        assert models.origin(provider.id, model_id) == "fetched"
        for name, value in said.items():
            assert getattr(model, name) == value, (model_id, name)
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in server.headers)


async def test_an_output_cap_nobody_gave_fits_a_small_context() -> None:
    async with ModelServer("vllm").server() as server:
        models = pi_sdk.Models([_provider("vllm", server)])
        await models.refresh()
    assert models.get_model("vllm", "gpt-4o-mini").max_tokens == 1024  # a quarter of 4096
    assert models.get_model("vllm", "Qwen/Qwen3-8B").max_tokens == 8192


@pytest.mark.parametrize("shape", SHAPES)
async def test_the_second_refresh_gets_a_304_and_keeps_the_list(shape: str, tmp_path: Path) -> None:
    fake = ModelServer(shape)
    store = pi_sdk.FileModelsStore(tmp_path / "models-store.json")
    async with fake.server() as server:
        provider = _provider(shape, server)
        models = pi_sdk.Models([provider], store=store)
        first = await models.refresh()
        listed = models.models(provider.id)
        requests = len(server.requests)
        second = await models.refresh()
        conditional = server.headers[requests]
        again = server.requests[requests:]
    assert first.sources == {provider.id: "server"}
    assert second.sources == {provider.id: "not-modified"} and second.ok
    assert models.models(provider.id) == listed
    assert (fake.lists, fake.not_modified) == (1, 1)
    assert conditional["if-none-match"] == ETAG
    assert conditional["if-modified-since"] == LAST_MODIFIED
    assert len(again) == 1  # a 304 asks nothing more (no /api/show after /api/tags)


@pytest.mark.parametrize(
    ("on_304", "kept"),
    [
        ({}, {"if-none-match": ETAG, "if-modified-since": LAST_MODIFIED}),  # none sent: kept
        ({"etag": ETAG}, {"if-none-match": ETAG, "if-modified-since": LAST_MODIFIED}),
        ({"last-modified": "Tue, 01 Dec 2026 10:00:00 GMT"},
         {"if-none-match": ETAG, "if-modified-since": "Tue, 01 Dec 2026 10:00:00 GMT"}),
    ],
    ids=["none", "etag-only", "new-last-modified"],
)  # fmt: skip
async def test_after_a_304_the_next_refresh_sends_the_validators_still_true(
    on_304: dict[str, str], kept: dict[str, str], tmp_path: Path
) -> None:
    # A 304 may leave its validators out (RFC 9110 15.4.5): what it leaves out stays as
    # stored, what it sends replaces the stored one.
    fake = ModelServer("vllm", validators_on_304=on_304)
    async with fake.server() as server:
        provider = _provider("vllm", server)
        models = pi_sdk.Models([provider], store=pi_sdk.FileModelsStore(tmp_path / "s.json"))
        await models.refresh()
        listed = models.models(provider.id)
        await models.refresh()
        third = await models.refresh()
        sent = server.headers[-1]
    assert third.sources == {provider.id: "not-modified"}
    assert models.models(provider.id) == listed
    assert {k: sent.get(k) for k in kept} == kept
    assert (fake.lists, fake.not_modified) == (1, 2)


@pytest.mark.parametrize("shape", ["vllm", "ollama"])
async def test_a_new_collection_serves_the_stored_lists_offline(shape: str, tmp_path: Path) -> None:
    store = pi_sdk.FileModelsStore(tmp_path / "models-store.json")
    async with ModelServer(shape).server() as server:
        provider = _provider(shape, server)
        online = pi_sdk.Models([provider], store=store)
        await online.refresh()
        asked = len(server.requests)
        offline = pi_sdk.Models([provider], store=pi_sdk.FileModelsStore(store.path))
        assert offline.models(provider.id) == []  # reads never do I/O
        result = await offline.refresh(allow_network=False)
        assert len(server.requests) == asked  # no request at all
    assert result.sources == {provider.id: "store"} and result.ok
    assert offline.models(provider.id) == online.models(provider.id)


async def test_force_asks_for_the_whole_list(tmp_path: Path) -> None:
    fake = ModelServer("vllm")
    async with fake.server() as server:
        provider = _provider("vllm", server)
        models = pi_sdk.Models([provider], store=pi_sdk.FileModelsStore(tmp_path / "s.json"))
        await models.refresh()
        result = await models.refresh(force=True)
        forced = server.headers[-1]
    assert result.sources == {"vllm": "server"}
    assert "if-none-match" not in forced and "if-modified-since" not in forced
    assert (fake.lists, fake.not_modified) == (2, 0)


async def test_lm_studio_without_its_native_api_is_listed_from_v1_models() -> None:
    async with ModelServer("openai").server() as server:  # no /api/v0/models: a 404
        models = pi_sdk.Models([_provider("lm-studio", server)])
        result = await models.refresh()
        paths = [target for _, target, _ in server.requests]
    assert result.ok
    assert paths == ["/api/v0/models", "/v1/models"]
    assert [m.id for m in models.models("lm-studio")] == ["gpt-4o-mini", "text-embedding-3-small"]


async def test_catalog_fills_what_the_server_did_not_say_but_prices_only_from_its_provider() -> (
    None
):
    catalog = pi_sdk_openai.provider("openai")
    async with ModelServer("vllm").server() as server:
        models = pi_sdk.Models([catalog, _provider("vllm", server)])
        await models.refresh()
    cloud = models.get_model("openai", "gpt-4o-mini")
    local = models.get_model("vllm", "gpt-4o-mini")
    assert local.context_window == 4096 and local.max_tokens == cloud.max_tokens  # said; filled
    assert (local.name, local.input, local.reasoning) == (cloud.name, cloud.input, cloud.reasoning)
    assert cloud.cost.input > 0 and local.cost.input == 0  # a local server is not priced
    assert models.origin("openai", "gpt-4o-mini") == "catalog"


# --- failures ------------------------------------------------------------------------------


async def _refresh_beside_a_healthy_server(failing: pi_sdk.Provider) -> tuple[Any, pi_sdk.Models]:
    """Refresh ``failing`` with a healthy vLLM and a static catalog provider in one collection."""
    static = pi_sdk.Provider(
        id="static", models=[pi_sdk.Model(id="m", api="openai-completions", provider="static")]
    )
    async with ModelServer("vllm").server() as healthy:
        models = pi_sdk.Models([failing, _provider("vllm", healthy), static])
        result = await models.refresh(timeout_s=0.5)
    return result, models


def _assert_reported(result: Any, models: pi_sdk.Models, provider: str, url: str) -> str:
    assert result.refreshed == ["vllm"] and not result.aborted
    assert set(result.errors) == {provider}
    message: str = result.errors[provider]
    assert message.startswith(f"{provider} (") and url in message
    assert KEY not in message
    assert [m.id for m in models.models("vllm")] == ["Qwen/Qwen3-8B", "gpt-4o-mini"]
    assert models.get_model("static", "m").provider == "static"  # untouched, still served
    assert models.models(provider) == []
    return message


async def test_a_server_that_is_down_is_reported_and_the_rest_still_works() -> None:
    url = closed_port_url()
    down = openai_compatible_provider("down", f"{url}/v1", api_key=KEY)
    result, models = await _refresh_beside_a_healthy_server(down)
    message = _assert_reported(result, models, "down", f"{url}/v1/models")
    assert "connection refused" in message


@pytest.mark.parametrize("shape", ["vllm", "ollama"])
async def test_a_slow_server_is_reported_and_the_rest_still_works(shape: str) -> None:
    async with ModelServer(shape, hang=True).server() as server:
        slow = openai_compatible_provider(
            "slow", f"{server.url}/v1", api_key=KEY, models_api=MODELS_API[shape]
        )
        result, models = await _refresh_beside_a_healthy_server(slow)
        url = server.url
    message = _assert_reported(result, models, "slow", url)
    assert "no answer within 0.5 s" in message


@pytest.mark.parametrize("garbage", ["html", "invalid-json", "wrong-shape"])
@pytest.mark.parametrize("shape", ["openai", "lm-studio", "ollama"])
async def test_a_server_answering_garbage_is_reported(shape: str, garbage: str) -> None:
    async with ModelServer(shape, garbage=garbage).server() as server:  # type: ignore[arg-type]
        bad = openai_compatible_provider(
            "bad", f"{server.url}/v1", api_key=KEY, models_api=MODELS_API[shape]
        )
        result, models = await _refresh_beside_a_healthy_server(bad)
        url = server.url
    message = _assert_reported(result, models, "bad", url)
    if garbage == "wrong-shape":
        assert "unexpected answer" in message
    else:
        assert "the answer is not JSON" in message
    assert len(message) < 600  # an excerpt of the page, not the page


async def test_an_http_error_keeps_the_previous_list_and_never_shows_the_key() -> None:
    fake = ModelServer("vllm")
    async with fake.server() as server:
        models = pi_sdk.Models([_provider("vllm", server, api_key=KEY)])
        await models.refresh()
        before = models.models("vllm")
        echo = Step(401, {"content-type": "text/plain"}, [f"bad key Bearer {KEY}".encode()])
        server.route = lambda *_: echo
        result = await models.refresh()
        url = server.url
    assert models.models("vllm") == before
    message = result.errors["vllm"]
    assert "HTTP 401 Unauthorized" in message and f"{url}/v1/models" in message
    assert KEY not in message


async def test_a_redirect_is_not_followed() -> None:
    moved = Step(302, {"location": "http://elsewhere.example/v1/models"}, [b""])
    async with LoopbackServer([moved]) as server:
        models = pi_sdk.Models([openai_compatible_provider("gw", f"{server.url}/v1", api_key=KEY)])
        result = await models.refresh()
    assert "HTTP 302" in result.errors["gw"] and len(server.requests) == 1


async def test_an_abort_ends_a_fetch_waiting_on_a_slow_server() -> None:
    controller = pi_sdk.AbortController()
    async with ModelServer("vllm", hang=True).server() as server:
        provider = _provider("vllm", server)
        lister = provider.fetch_models
        assert isinstance(lister, ModelLister)
        context = FetchContext(provider=provider, timeout_s=30, signal=controller.signal)
        fetch = asyncio.ensure_future(lister(context))
        while not server.requests:
            await asyncio.sleep(0.01)
        controller.abort()
        with pytest.raises(ListingError, match="aborted"):
            await fetch


# --- the published local servers -----------------------------------------------------------


def test_pi_sdk_openai_publishes_ollama_and_lm_studio_ready_to_refresh() -> None:
    local = {p.id: p for p in pi_sdk_openai.PROVIDERS if p.fetch_models is not None}
    assert {pid: p.base_url for pid, p in local.items()} == {
        "ollama": "http://127.0.0.1:11434/v1",
        "lm-studio": "http://127.0.0.1:1234/v1",
    }
    assert all(p.catalog() == [] for p in local.values())


async def test_local_servers_that_are_not_running_are_just_reported() -> None:
    url = closed_port_url()
    models = pi_sdk.Models(
        [pi_sdk_openai.provider(pid, base_url=f"{url}/v1") for pid in ("ollama", "lm-studio")]
    )
    result = await models.refresh()
    assert result.refreshed == [] and set(result.errors) == {"ollama", "lm-studio"}
    assert "/api/tags: cannot connect: connection refused" in result.errors["ollama"]
    assert "/api/v0/models: cannot connect" in result.errors["lm-studio"]


async def test_a_model_of_a_listed_server_is_called_through_openai_completions() -> None:
    body = json.dumps(
        {"id": "c1", "object": "chat.completion", "model": "qwen3:8b",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi!"},
                      "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
    ).encode()  # fmt: skip
    fake = ModelServer("ollama")

    def route(method: str, target: str, headers: dict[str, str], raw: bytes) -> Step:
        if target == "/v1/chat/completions":
            return Step(200, {"content-type": "application/json"}, [body])
        return fake.serve(method, target, headers, raw)

    async with LoopbackServer([], route=route) as server:
        models = pi_sdk.Models([pi_sdk_openai.provider("ollama", base_url=f"{server.url}/v1")])
        await models.refresh()
        model = models.get_model("ollama", "qwen3:8b")
        reply = await models.complete(
            model, pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        )
    assert reply.stop_reason == "stop", reply.error_message
    assert reply.content[0].text == "Hi!"  # type: ignore[union-attr]


# --- the abort rule of a fetch (``_servers._abortable``) ------------------------------------


@pytest.mark.parametrize(
    ("abort", "cancel", "raised"),
    [
        (True, False, ListingError),  # the signal's abort: a ListingError "aborted"
        (False, True, asyncio.CancelledError),  # the caller's cancel stays a cancel
        (True, True, asyncio.CancelledError),  # both: the caller's cancel wins
    ],
)
async def test_only_the_signal_makes_a_waiting_fetch_a_listing_error(
    abort: bool, cancel: bool, raised: type[BaseException]
) -> None:
    from pi_sdk_openai._servers import _abortable

    controller = pi_sdk.AbortController()
    started, finished = asyncio.Event(), []

    async def work() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            finished.append(True)
        return "never"

    fetch = asyncio.ensure_future(_abortable(work(), controller.signal))
    await started.wait()
    if cancel:
        fetch.cancel()
    if abort:
        controller.abort()
    with pytest.raises(raised) as failed:
        await fetch
    assert finished == [True]
    if raised is ListingError:
        assert str(failed.value) == "aborted"


async def test_a_fetch_without_a_signal_or_aborted_before_it_starts() -> None:
    from pi_sdk_openai._servers import _abortable

    async def work() -> str:
        return "listed"

    assert await _abortable(work(), None) == "listed"
    controller = pi_sdk.AbortController()
    assert await _abortable(work(), controller.signal) == "listed"
    controller.abort()
    never = work()
    with pytest.raises(ListingError, match="^aborted$"):
        await _abortable(never, controller.signal)
    assert never.cr_frame is None  # closed, never awaited
