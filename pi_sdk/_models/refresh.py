"""Run-time model lists: ask the providers that can list their models, keep what they said.

pi-ai 1.6 ``Models.refresh({providers, allowNetwork, force, signal})``: each provider with a
``fetch_models`` is asked concurrently; a failure (a server down, slow, or answering garbage) is
reported by provider and URL and never stops the others; a model field the server did not say is
filled from a catalog model with the same id; a :class:`ModelsStore` keeps each list as the
server gave it, with its HTTP validators (etag, last-modified), so a later refresh can ask
"changed since?" and an offline one (``allow_network=False``) reads the stored lists only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from pi_sdk._stream.provider import FetchContext, FetchedModels, Provider
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.redact import redact_text, secret_header_values
from pi_sdk.types import Model, now_ms

__all__ = [
    "FILLED_FIELDS",
    "ListSource",
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

_DEFAULT_MAX_TOKENS: int = Model.model_fields["max_tokens"].default

ListSource: TypeAlias = Literal["server", "not-modified", "store"]
"""Where a refreshed provider's list came from: the server now, the store after the server
answered "not modified" (HTTP 304), or the store alone (``allow_network=False``)."""


@dataclass(frozen=True, kw_only=True)
class StoredModels:
    """One provider's fetched list as a store keeps it: what the server said, unfilled.

    The models hold only the fields the server gave (pydantic ``model_fields_set``), so that
    each use fills the rest from the catalog installed then.
    """

    models: list[Model]
    etag: str | None = None
    """The ``ETag`` of the answer, sent back as ``If-None-Match``."""
    last_modified: str | None = None
    """The ``Last-Modified`` of the answer, sent back as ``If-Modified-Since``."""
    fetched_at: int = 0
    """When it was fetched, epoch milliseconds."""


class ModelsStore(Protocol):
    """Where fetched model lists persist (:class:`pi_sdk.FileModelsStore` keeps them on disk).

    Keys come from :func:`store_key`: one entry per provider id and base URL, so collections
    pointing one provider id at two servers do not mix their lists. Both methods are
    synchronous and called on the event loop: keep them quick (a local file, not the network).
    An exception from either is reported as the provider's error by
    :meth:`pi_sdk.Models.refresh`, which goes on without the store.
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
    modified"), sorted; ``sources``: for each of them where its list came from
    (:data:`ListSource`); ``errors``: per failed provider, a message naming it and its URL
    (never a key); ``aborted``: the signal fired before every provider answered.
    """

    refreshed: list[str] = field(default_factory=list[str])
    sources: dict[str, ListSource] = field(default_factory=dict[str, ListSource])
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
        The result, and per provider refreshed its new model list (filled from ``catalog()``).
    """
    result = RefreshResult()
    fetched: dict[str, list[Model]] = {}
    listing = [p for p in providers if p.fetch_models is not None]
    if not listing:
        return result, fetched
    run = _Run(catalog(), api_key, store, result, _Asking(allow_network, force, timeout_s, signal))

    async def one(provider: Provider) -> None:
        models = await run.refresh(provider)
        if models is not None:
            fetched[provider.id] = models

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
    result.refreshed = sorted(result.sources)
    return result, fetched


@dataclass(frozen=True)
class _Asking:
    """How a refresh asks: over the network or not, with validators or not, for how long."""

    allow_network: bool
    force: bool
    timeout_s: float
    signal: AbortSignal | None


@dataclass(frozen=True)
class _Run:
    """One refresh: what every provider's refresh shares."""

    known: list[Model]
    """The catalog models that fill what servers do not say."""
    api_key: Callable[[str], str | None]
    store: ModelsStore | None
    result: RefreshResult
    asking: _Asking

    async def refresh(self, provider: Provider) -> list[Model] | None:
        """``provider``'s new list, filled (``None``: keep what the collection has)."""
        where = f"{provider.id} ({provider.base_url or 'its default URL'})"
        key = store_key(provider)
        stored, problem = self._load(key)
        if not self.asking.allow_network:
            if problem is not None:
                self.result.errors[provider.id] = f"{where}: {problem}"
            if stored is None:
                return None
            return self._use(provider, stored.models, "store")
        basis = stored if stored is not None and not self.asking.force else None
        assert provider.fetch_models is not None
        secret: str | None = None
        try:
            secret = self.api_key(provider.id)
            context = FetchContext(
                provider=provider,
                api_key=secret,
                etag=basis.etag if basis is not None else None,
                last_modified=basis.last_modified if basis is not None else None,
                timeout_s=self.asking.timeout_s,
                signal=self.asking.signal,
            )
            async with asyncio.timeout(self.asking.timeout_s):
                answer = await provider.fetch_models(context)
            if not isinstance(answer, FetchedModels):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"fetch_models returned {type(answer).__name__}, not FetchedModels")
            source: ListSource
            if answer.models is None:
                if stored is None:
                    raise ValueError("the server said 'not modified', but no list is stored")
                # A 304's validators update the stored ones (RFC 9111 4.3.4): stored again.
                listed, source = stored.models, "not-modified"
            else:
                listed, source = answer.models, "server"
            models = self._use(provider, listed, source)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad provider must not stop the refresh
            self.result.sources.pop(provider.id, None)
            text = (
                f"no answer within {self.asking.timeout_s:g} s"
                if isinstance(exc, TimeoutError)
                else str(exc) or type(exc).__name__
            )
            secrets = [secret, *secret_header_values(provider.headers)]
            self.result.errors[provider.id] = redact_text(f"{where}: {text}", secrets)
            return None
        if self.store is not None:
            entry = StoredModels(
                models=listed,
                etag=answer.etag,
                last_modified=answer.last_modified,
                fetched_at=now_ms(),
            )
            try:
                self.store.save(key, entry)
            except Exception as exc:  # noqa: BLE001 - the list is in use; say the store failed
                self.result.errors[provider.id] = f"{where}: listed, but not stored: {exc}"
        return models

    def _load(self, key: str) -> tuple[StoredModels | None, str | None]:
        """The stored entry of ``key``, and why the store failed (never raises)."""
        if self.store is None:
            return None, None
        try:
            return self.store.load(key), None
        except Exception as exc:  # noqa: BLE001 - a broken store is one provider's problem
            return None, f"the store failed: {exc}"

    def _use(self, provider: Provider, models: list[Model], source: ListSource) -> list[Model]:
        """``models`` filled from the catalog, with ``source`` noted (raises ``ValueError``)."""
        filled = fill_from_catalog(provider.id, models, self.known)
        self.result.sources[provider.id] = source
        return filled


def fill_from_catalog(provider: str, models: list[Model], catalog: list[Model]) -> list[Model]:
    """``models`` (a server's list for ``provider``) with what the server did not say filled in.

    A fetched model's field that was not given explicitly (pydantic ``model_fields_set``) is
    taken from the catalog model with the same id: of the same provider first (prices too),
    else of any provider (limits and capabilities only, :data:`FILLED_FIELDS`). A model whose
    server gave its context window but whose output cap nobody gave gets a quarter of that
    window, at most the ``Model`` default (16,384 tokens): every ``openai-completions`` request
    sends a cap, and vLLM rejects one whose prompt plus cap exceeds ``max_model_len``.

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
        given = model.model_fields_set
        changes: dict[str, Any] = {}
        if match is not None:
            changes = {name: getattr(match, name) for name in fields if name not in given}
        if "max_tokens" not in given and "max_tokens" not in changes and "context_window" in given:
            changes["max_tokens"] = min(_DEFAULT_MAX_TOKENS, max(1, model.context_window // 4))
        filled.append(model.model_copy(update=changes) if changes else model)
    return filled
