"""What every cached ``google.genai.Client`` shares: one sync client, one TLS context.

``google-genai`` builds a sync ``httpx`` client (and loads a CA bundle for it) per client unless
given one; pi-sdk never sends through it, so :mod:`pi_sdk_google._client` builds one, once per
process (in :func:`~pi_sdk_google._client.prepare`, or at the first client when ``prepare`` was
not awaited), and hands the same one to every client it builds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pi_sdk_google import _client

from pi_sdk._kit.clients import _shared as shared_values  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """A fresh process state; the sync clients built from now on, in order."""
    monkeypatch.setattr(_client, "_sync_client", None)
    monkeypatch.setattr(_client, "_ssl_context", None)
    # prepare() keeps its sync client in the process-wide table too: as if never built.
    monkeypatch.delitem(shared_values, "pi_sdk_google.sync_client", raising=False)
    made: list[Any] = []
    original = _client._new_sync_client  # pyright: ignore[reportPrivateUsage]

    def counting() -> Any:
        made.append(original())
        return made[-1]

    monkeypatch.setattr(_client, "_new_sync_client", counting)
    yield made
    for client in made:  # the process's own sync client comes back with monkeypatch's undo
        client.close()


async def _sync_client_of(**kwargs: Any) -> Any:
    async with _client.get_client(**kwargs) as client:
        return client._api_client._httpx_client  # pyright: ignore[reportPrivateUsage]


CONFIGURATIONS: list[dict[str, Any]] = [
    {"vertex": False, "api_key": "shared-sync-a"},
    {"vertex": False, "api_key": "shared-sync-b", "timeout_ms": 5000},
    {"vertex": True, "api_key": "shared-sync-express"},
]


@pytest.mark.parametrize("prepared", [True, False])
async def test_every_client_gets_the_one_sync_client_built_once(
    built: list[Any], prepared: bool
) -> None:
    if prepared:
        await _client.prepare()
        assert len(built) == 1
        await _client.prepare()  # a second call builds nothing
    sync_clients = [await _sync_client_of(**kwargs) for kwargs in CONFIGURATIONS]
    assert len(built) == 1  # once per process, whichever client came first
    assert all(sync is built[0] for sync in sync_clients)
    assert built[0] is _client._sync_client  # pyright: ignore[reportPrivateUsage]
