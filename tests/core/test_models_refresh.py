"""``Models.refresh`` itself, with scripted ``fetch_models`` functions (no server needed).

Providers are asked concurrently; an abort ends the refresh at once and keeps what already
answered; a provider without ``fetch_models`` is left alone; a failure (an exception, a timeout,
a wrong answer, a broken store) is one provider's error naming it and its URL, never its key,
and it keeps its previous list; a fetched model's unsaid fields come from the catalog, prices
only from its own provider; the store gets what the server said, unfilled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from _support.strings import built

import pi_sdk
from pi_sdk._models.refresh import fill_from_catalog, store_key
from pi_sdk.provider import FetchContext, FetchedModels

KEY = "sk-test-SECRET-refresh-0123456789"
Fetch = Callable[[FetchContext], Awaitable[FetchedModels]]


def model(provider: str, model_id: str, **fields: Any) -> pi_sdk.Model:
    return pi_sdk.Model(id=model_id, api="openai-completions", provider=provider, **fields)


def listing(provider: str, *ids: str, **fields: Any) -> Fetch:
    async def fetch(context: FetchContext) -> FetchedModels:
        return FetchedModels(models=[model(provider, i, **fields) for i in ids], etag='"1"')

    return fetch


def server(provider_id: str, fetch: Fetch, **kwargs: Any) -> pi_sdk.Provider:
    return pi_sdk.Provider(
        id=provider_id, base_url=f"http://{provider_id}.test/v1", fetch_models=fetch, **kwargs
    )


class MemoryStore:
    def __init__(self) -> None:
        self.entries: dict[str, pi_sdk.StoredModels] = {}

    def load(self, key: str) -> pi_sdk.StoredModels | None:
        return self.entries.get(key)

    def save(self, key: str, stored: pi_sdk.StoredModels) -> None:
        self.entries[key] = stored


async def test_providers_are_asked_concurrently() -> None:
    a_started, b_started = asyncio.Event(), asyncio.Event()

    def waiting(mine: asyncio.Event, theirs: asyncio.Event, provider: str) -> Fetch:
        async def fetch(context: FetchContext) -> FetchedModels:
            mine.set()
            await theirs.wait()  # only returns if the other fetch runs at the same time
            return FetchedModels(models=[model(provider, "m")])

        return fetch

    models = pi_sdk.Models(
        [
            server("a", waiting(a_started, b_started, "a")),
            server("b", waiting(b_started, a_started, "b")),
        ]
    )
    result = await asyncio.wait_for(models.refresh(), 5)
    assert result.refreshed == ["a", "b"] and result.ok


async def test_an_abort_ends_the_refresh_and_keeps_what_already_answered() -> None:
    controller = pi_sdk.AbortController()
    hung = asyncio.Event()

    async def forever(context: FetchContext) -> FetchedModels:
        hung.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    models = pi_sdk.Models([server("fast", listing("fast", "m1")), server("stuck", forever)])
    refresh = asyncio.ensure_future(models.refresh(signal=controller.signal))
    await hung.wait()
    await asyncio.sleep(0)
    controller.abort()
    result = await asyncio.wait_for(refresh, 5)
    assert result.aborted and not result.ok
    assert result.refreshed == ["fast"] and result.errors == {}
    assert [m.id for m in models.models("fast")] == ["m1"]


async def test_a_provider_without_fetch_models_is_left_alone() -> None:
    static = pi_sdk.Provider(id="static", models=[model("static", "fixed")])
    models = pi_sdk.Models([static, server("srv", listing("srv", "m"))])
    result = await models.refresh()
    assert result.refreshed == ["srv"]
    assert await models.refresh(["static"]) == pi_sdk.RefreshResult()
    assert [m.id for m in models.models("static")] == ["fixed"]
    assert models.origin("static", "fixed") == "catalog"
    with pytest.raises(pi_sdk.ProviderNotFoundError, match="nope"):
        await models.refresh(["nope"])


async def test_unsaid_fields_come_from_the_catalog_and_prices_only_from_the_same_provider() -> None:
    priced = {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}
    cloud = pi_sdk.Provider(
        id="cloud",
        models=[model("cloud", "big", name="Big", reasoning=True, input=["text", "image"],
                      context_window=200_000, max_tokens=64_000, cost=priced)],
    )  # fmt: skip
    own = [model("srv", "big", name="Big (own)", cost={"input": 1, "output": 2})]
    said = listing("srv", "big", "small", context_window=8192)
    models = pi_sdk.Models([cloud, server("srv", said, models=own)])
    await models.refresh()
    big = models.get_model("srv", "big")
    assert big.context_window == 8192  # the server said it
    assert (big.name, big.cost.input, big.max_tokens) == ("Big (own)", 1, 16_384)  # own catalog
    assert big.base_url == "http://srv.test/v1"
    other = pi_sdk.Models([cloud, server("srv", said)])
    await other.refresh()
    borrowed = other.get_model("srv", "big")
    assert (borrowed.name, borrowed.reasoning, borrowed.input) == ("Big", True, ["text", "image"])
    assert borrowed.max_tokens == 64_000 and borrowed.cost.input == 0  # no price from "cloud"
    assert other.get_model("srv", "small").max_tokens == 2048  # a quarter of the 8,192 said


async def test_the_store_keeps_what_the_server_said_unfilled() -> None:
    store = MemoryStore()
    cloud = pi_sdk.Provider(id="cloud", models=[model("cloud", "big", name="Big")])
    models = pi_sdk.Models([cloud, server("srv", listing("srv", "big"))], store=store)
    await models.refresh()
    assert models.get_model("srv", "big").name == "Big"
    (entry,) = store.entries.values()
    assert entry.etag == '"1"' and entry.fetched_at > 0
    assert entry.models[0].model_fields_set == {"id", "api", "provider"}


async def test_a_failure_names_provider_and_url_never_the_key_and_keeps_the_last_list() -> None:
    calls = 0

    async def flaky(context: FetchContext) -> FetchedModels:
        nonlocal calls
        calls += 1
        if calls == 1:
            return FetchedModels(models=[model("srv", "m")])
        assert context.api_key == KEY
        raise RuntimeError(
            f"GET http://srv.test/v1/models: 401, echoed {context.api_key} and tok-secret-9"
        )

    provider = server(
        "srv", flaky, auth=pi_sdk.ProviderAuth(api_key=KEY), headers={"X-Token": "tok-secret-9"}
    )
    models = pi_sdk.Models([provider])
    await models.refresh()
    result = await models.refresh()
    message = result.errors["srv"]
    assert message.startswith("srv (http://srv.test/v1): GET http://srv.test/v1/models: 401")
    assert KEY not in message and "tok-secret-9" not in message
    assert result.refreshed == [] and [m.id for m in models.models("srv")] == ["m"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("not a FetchedModels", "fetch_models returned str, not FetchedModels"),
        (FetchedModels(models=None), "the server said 'not modified', but no list is stored"),
        (FetchedModels(models=[model("other", "m")]), "the list of 'srv' holds other/m"),
    ],
)
async def test_a_wrong_answer_is_the_providers_error(answer: Any, expected: str) -> None:
    async def fetch(context: FetchContext) -> Any:
        return answer

    models = pi_sdk.Models([server("srv", fetch), server("ok", listing("ok", "m"))])
    result = await models.refresh()
    assert result.errors == {"srv": f"srv (http://srv.test/v1): {expected}"}
    assert result.refreshed == ["ok"]


async def test_a_fetch_past_its_timeout_is_reported() -> None:
    async def slow(context: FetchContext) -> FetchedModels:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    models = pi_sdk.Models([server("slow", slow), server("ok", listing("ok", "m"))])
    result = await models.refresh(timeout_s=0.05)
    assert result.errors == {"slow": "slow (http://slow.test/v1): no answer within 0.05 s"}
    assert result.refreshed == ["ok"]


async def test_a_broken_store_is_reported_and_the_list_still_used() -> None:
    class Broken(MemoryStore):
        def save(self, key: str, stored: pi_sdk.StoredModels) -> None:
            raise OSError(28, "No space left on device")

        def load(self, key: str) -> pi_sdk.StoredModels | None:
            raise OSError(13, "Permission denied")

    models = pi_sdk.Models([server("srv", listing("srv", "m"))], store=Broken())
    result = await models.refresh()
    assert result.refreshed == ["srv"] and [m.id for m in models.models("srv")] == ["m"]
    assert "listed, but not stored: [Errno 28] No space left on device" in result.errors["srv"]
    offline = await models.refresh(allow_network=False)
    assert offline.errors == {
        "srv": "srv (http://srv.test/v1): the store failed: [Errno 13] Permission denied"
    }
    assert [m.id for m in models.models("srv")] == ["m"]  # still the last list


async def test_offline_without_a_stored_list_changes_nothing() -> None:
    models = pi_sdk.Models([server("srv", listing("srv", "m"))], store=MemoryStore())
    result = await models.refresh(allow_network=False)
    assert result == pi_sdk.RefreshResult() and models.models("srv") == []


async def test_not_modified_keeps_the_stored_list_and_force_sends_no_validators() -> None:
    seen: list[tuple[str | None, str | None]] = []

    async def conditional(context: FetchContext) -> FetchedModels:
        seen.append((context.etag, context.last_modified))
        if context.etag == '"1"':
            return FetchedModels(models=None, etag='"1"')
        return FetchedModels(models=[model("srv", "m")], etag='"1"', last_modified="yesterday")

    models = pi_sdk.Models([server("srv", conditional)], store=MemoryStore())
    assert (await models.refresh()).sources == {"srv": "server"}
    assert (await models.refresh()).sources == {"srv": "not-modified"}
    assert (await models.refresh(force=True)).sources == {"srv": "server"}
    assert seen == [(None, None), ('"1"', "yesterday"), (None, None)]
    assert [m.id for m in models.models("srv")] == ["m"]


def test_refresh_sync_runs_outside_an_event_loop() -> None:
    models = pi_sdk.Models([server("srv", listing("srv", "m"))])
    assert models.refresh_sync().refreshed == ["srv"]
    assert models.origin("srv", "m") == "fetched"
    models.register_model(model("srv", "m"))
    assert models.origin("srv", "m") == "hand"
    with pytest.raises(pi_sdk.ModelNotFoundError):
        models.origin("srv", "nope")


async def test_a_key_callback_that_raises_is_that_providers_error() -> None:
    def broken() -> str | None:
        raise RuntimeError("vault sealed")

    locked = server("locked", listing("locked", "m"), auth=pi_sdk.ProviderAuth(get_api_key=broken))
    models = pi_sdk.Models([locked, server("ok", listing("ok", "m"))])
    result = await models.refresh()
    assert result.errors == {"locked": "locked (http://locked.test/v1): vault sealed"}
    assert result.refreshed == ["ok"]


@pytest.mark.parametrize(
    ("context_window", "max_tokens"),
    [(8, 2), (7, 1), (3, 1), (1, 1), (65_532, 16_383), (65_536, 16_384), (1_000_000, 16_384)],
)
def test_an_unsaid_output_cap_is_a_quarter_of_the_said_window_within_1_and_the_default(
    context_window: int, max_tokens: int
) -> None:
    (filled,) = fill_from_catalog("srv", [model("srv", "m", context_window=context_window)], [])
    assert (filled.context_window, filled.max_tokens) == (context_window, max_tokens)


def test_a_said_cap_or_an_unsaid_window_leaves_the_cap_alone() -> None:
    said = model("srv", "a", context_window=8192, max_tokens=100)
    unsaid = model("srv", "b")
    window = model("cloud", "b", context_window=8192)  # fills the window, not said by the server
    assert [m.max_tokens for m in fill_from_catalog("srv", [said, unsaid], [window])] == [
        100,
        pi_sdk.Model(id="x", api="a", provider="p").max_tokens,
    ]


def test_the_same_provider_s_catalog_model_wins_over_an_earlier_one_of_another() -> None:
    catalog = [
        model("cloud", "m", name="Cloud's", cost={"input": 9, "output": 9}),
        model("srv", "m", name="First own", cost={"input": 1, "output": 2}),
        model("srv", "m", name="Second own", cost={"input": 5, "output": 5}),
    ]
    srv = built("srv")  # a provider id read from --server or a settings file
    (filled,) = fill_from_catalog(srv, [model("srv", "m")], catalog)
    assert (filled.name, filled.cost.input) == ("First own", 1)
    (said,) = fill_from_catalog("srv", [model("srv", "m", name="Server's")], catalog)
    assert (said.name, said.cost.input) == ("Server's", 1)
    (foreign,) = fill_from_catalog("srv", [model("srv", "m")], catalog[:1])
    assert (foreign.name, foreign.cost.input) == ("Cloud's", 0)


def test_store_key_is_the_id_and_the_base_url_when_there_is_one() -> None:
    assert store_key(pi_sdk.Provider(id="srv")) == "srv"
    assert store_key(server("srv", listing("srv"))) == "srv http://srv.test/v1"


def test_a_result_is_ok_only_without_errors_and_abort() -> None:
    assert pi_sdk.RefreshResult().ok
    assert not pi_sdk.RefreshResult(errors={"a": "x"}).ok
    assert not pi_sdk.RefreshResult(aborted=True).ok


async def test_offline_a_stored_list_is_used_filled_and_its_source_is_the_store() -> None:
    store = MemoryStore()
    cloud = pi_sdk.Provider(id="cloud", models=[model("cloud", "m", name="Named")])
    await pi_sdk.Models([server("srv", listing("srv", "m"))], store=store).refresh()
    calls: list[str] = []

    async def never(context: FetchContext) -> FetchedModels:
        calls.append("asked")
        raise AssertionError("offline: no fetch")

    models = pi_sdk.Models([cloud, server("srv", never)], store=store)
    result = await models.refresh(allow_network=False)
    assert (result.refreshed, result.sources, result.errors) == (["srv"], {"srv": "store"}, {})
    assert models.get_model("srv", "m").name == "Named" and calls == []


async def test_a_not_modified_answer_stores_its_new_validators_with_the_kept_list() -> None:
    store = MemoryStore()
    answers = [
        FetchedModels(models=[model("srv", "m")], etag='"1"', last_modified="monday"),
        FetchedModels(models=None, etag='"2"', last_modified="tuesday"),
    ]

    async def fetch(context: FetchContext) -> FetchedModels:
        return answers.pop(0)

    models = pi_sdk.Models([server("srv", fetch)], store=store)
    await models.refresh()
    (first,) = store.entries.values()
    assert (await models.refresh()).sources == {"srv": "not-modified"}
    (entry,) = store.entries.values()
    assert (entry.etag, entry.last_modified) == ('"2"', "tuesday")
    assert [m.id for m in entry.models] == ["m"] and entry.fetched_at >= first.fetched_at


async def test_an_error_without_a_message_is_named_by_its_class() -> None:
    async def fetch(context: FetchContext) -> FetchedModels:
        raise KeyError

    models = pi_sdk.Models([server("srv", fetch)])
    result = await models.refresh()
    assert result.errors == {"srv": "srv (http://srv.test/v1): KeyError"}
    no_url = pi_sdk.Models([pi_sdk.Provider(id="bare", fetch_models=fetch)])
    assert (await no_url.refresh()).errors == {"bare": "bare (its default URL): KeyError"}


async def test_by_default_each_provider_is_asked_over_the_network_with_validators_in_10_s() -> None:
    """``refresh()``'s defaults: network allowed, validators sent (no ``force``), 10 s each."""
    seen: list[tuple[float, str | None]] = []

    async def fetch(context: FetchContext) -> FetchedModels:
        seen.append((context.timeout_s, context.etag))
        return FetchedModels(models=[model("srv", "m")], etag='"v1"')

    models = pi_sdk.Models([server("srv", fetch)], store=MemoryStore())
    assert (await models.refresh()).sources == {"srv": "server"}
    assert (await models.refresh()).sources == {"srv": "server"}
    assert seen == [(10.0, None), (10.0, '"v1"')]
