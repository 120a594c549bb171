"""Run-time model lists: ask the providers that can list their models, keep what they said.

pi-ai 1.6 ``Models.refresh({providers, allowNetwork, force, signal})``: each provider with a
``fetch_models`` is asked concurrently; a failure (a server down, slow, or answering garbage) is
reported by provider and URL and never stops the others; a model field the server did not say is
filled from a catalog model with the same id; a :class:`ModelsStore` keeps each list with its
HTTP validators (etag, last-modified), so a later refresh can ask "changed since?" and an offline
one (``allow_network=False``) reads the stored lists only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pi_sdk._stream.provider import FetchContext, FetchedModels, Provider
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.redact import redact_text
from pi_sdk.types import Model, now_ms

__all__ = [
    "ModelsStore",
    "RefreshResult",
    "StoredModels",
    "fill_from_catalog",
    "refresh_providers",
    "store_key",
]

FILLED_FIELDS = ("name", "reasoning", "input", "context_window", "max_tokens", "thinking_level_map")
"""What a catalog model with the same id fills in when the server did not say it. Never the
base URL, headers or compat flags (they belong to the server called), and the prices only from a
catalog model of the same provider (a local server is not priced as a cloud one)."""


@dataclass(frozen=True, kw_only=True)
class StoredModels:
    """One provider's fetched list as a store keeps it."""

    models: list[Model]
    etag: str | None = None
    last_modified: str | None = None
    fetched_at: int = 0
    """When it was fetched, epoch milliseconds."""


class ModelsStore(Protocol):
    """Where fetched model lists persist (:class:`pi_sdk.FileModelsStore` keeps them on disk).

    Keys come from :func:`store_key`: one entry per provider id and base URL, so collections
    pointing one provider id at two servers do not mix their lists.
    """

    def load(self, key: str) -> StoredModels | None:
        """The entry under ``key``, or ``None`` (also for an unreadable entry)."""
        ...

    def save(self, key: str, stored: StoredModels) -> None:
        """Keep ``stored`` under ``key``, replacing what was there."""
        ...


@dataclass(kw_only=True)
class RefreshResult:
    """What :meth:`pi_sdk.Models.refresh` did.

    ``refreshed``: providers whose list is now the server's (or the stored one, offline or "not
    modified"); ``errors``: per failed provider, a message naming it and its URL (never a key);
    ``aborted``: the signal fired before every provider answered.
    """

    refreshed: list[str] = field(default_factory=list[str])
    errors: dict[str, str] = field(default_factory=dict[str, str])
    aborted: bool = False

    @property
    def ok(self) -> bool:
        """No provider failed and the refresh was not aborted."""
        return not self.errors and not self.aborted


def store_key(provider: Provider) -> str:
    """The store key of ``provider``'s list: its id, and its base URL when it has one."""
    return f"{provider.id} {provider.base_url}" if provider.base_url else provider.id


async def refresh_providers(
    providers: Sequence[Provider],
    *,
    catalog: Callable[[], list[Model]],
    api_key: Callable[[str], str | None],
    store: ModelsStore | None,
    allow_network: bool,
    force: bool,
    timeout_s: float,
    signal: AbortSignal | None,
) -> tuple[RefreshResult, dict[str, list[Model]]]:
    """Refresh every provider of ``providers`` that has a ``fetch_models``, concurrently.

    Returns:
        The result, and per provider refreshed its new model list.
    """
    result = RefreshResult()
    fetched: dict[str, list[Model]] = {}
    listing = [p for p in providers if p.fetch_models is not None]
    if not listing:
        return result, fetched
    known = catalog()

    async def one(provider: Provider) -> None:
        models = await _refresh_one(
            provider, known, api_key, store, allow_network, force, timeout_s, signal, result
        )
        if models is not None:
            fetched[provider.id] = models
            result.refreshed.append(provider.id)

    everything = asyncio.gather(*(one(p) for p in listing))
    if signal is None:
        await everything
    else:
        aborted = asyncio.ensure_future(signal.wait())
        done, _ = await asyncio.wait([everything, aborted], return_when=asyncio.FIRST_COMPLETED)
        if everything not in done:
            result.aborted = True
            everything.cancel()
            await asyncio.gather(everything, return_exceptions=True)
        aborted.cancel()
    result.refreshed.sort()
    return result, fetched


async def _refresh_one(
    provider: Provider,
    known: list[Model],
    api_key: Callable[[str], str | None],
    store: ModelsStore | None,
    allow_network: bool,
    force: bool,
    timeout_s: float,
    signal: AbortSignal | None,
    result: RefreshResult,
) -> list[Model] | None:
    """One provider's new list (``None``: keep what the collection has)."""
    key = store_key(provider)
    stored = store.load(key) if store is not None else None
    where = f"{provider.id} ({provider.base_url or 'its default URL'})"
    if not allow_network:
        return stored.models if stored is not None else None
    secret = api_key(provider.id)
    context = FetchContext(
        provider=provider,
        api_key=secret,
        etag=None if force or stored is None else stored.etag,
        last_modified=None if force or stored is None else stored.last_modified,
        timeout_s=timeout_s,
        signal=signal,
    )
    assert provider.fetch_models is not None
    try:
        answer: FetchedModels = await asyncio.wait_for(provider.fetch_models(context), timeout_s)
        if not isinstance(answer, FetchedModels):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"fetch_models returned {type(answer).__name__}, not FetchedModels")
        if answer.models is None:
            if stored is None:
                raise ValueError("the server said 'not modified' but no list is stored")
            return stored.models
        models = fill_from_catalog(provider.id, answer.models, known)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - one bad provider must not stop the refresh
        text = "timed out" if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__
        result.errors[provider.id] = redact_text(f"{where}: {text}", [secret])
        return None
    if store is not None:
        try:
            store.save(
                key,
                StoredModels(
                    models=models,
                    etag=answer.etag,
                    last_modified=answer.last_modified,
                    fetched_at=now_ms(),
                ),
            )
        except OSError as exc:
            result.errors[provider.id] = f"{where}: listed, but the store failed: {exc}"
    return models


def fill_from_catalog(provider: str, models: list[Model], catalog: list[Model]) -> list[Model]:
    """``models`` (a server's list for ``provider``) with what the server did not say filled in.

    A fetched model's field that was not given explicitly (pydantic ``model_fields_set``) is
    taken from the catalog model with the same id: of the same provider first (prices too),
    else of any provider (limits and capabilities only, :data:`FILLED_FIELDS`).

    Raises:
        ValueError: a fetched model names another provider.
    """
    same: dict[str, Model] = {}
    other: dict[str, Model] = {}
    for model in catalog:
        (same if model.provider == provider else other).setdefault(model.id, model)
    filled: list[Model] = []
    for model in models:
        if model.provider != provider:
            raise ValueError(f"the list of {provider!r} holds {model.provider}/{model.id}")
        match = same.get(model.id)
        fields = (*FILLED_FIELDS, "cost") if match is not None else FILLED_FIELDS
        match = match or other.get(model.id)
        if match is None:
            filled.append(model)
            continue
        given = model.model_fields_set
        changes = {name: getattr(match, name) for name in fields if name not in given}
        filled.append(model.model_copy(update=changes) if changes else model)
    return filled
