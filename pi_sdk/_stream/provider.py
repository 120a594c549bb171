"""A provider as one object: who serves the models, how to authenticate, which wire APIs it speaks.

pi-ai 1.6 ``createProvider({id, name, baseUrl, headers, auth, models, fetchModels, api})``: a
:class:`Provider` bundles a provider id (``"anthropic"``, ``"openrouter"``, ``"ollama"``), its
display name, default base URL and headers, its :class:`ProviderAuth`, its static catalog, an
optional :data:`FetchModels` for a run-time model list, and the wire-API implementations
(:class:`~pi_sdk.provider.ApiProvider`) its models are called through, keyed by ``model.api``.
:class:`pi_sdk.Models` collections hold providers; a provider package publishes its providers
through the ``pi_sdk`` entry-point group (the entry point names a ``Provider`` or a sequence of
them). Objects are frozen: :meth:`Provider.configure` returns a configured copy, so one package's
provider can serve two collections with two keys (two Azure tenants, a test collection).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pi_sdk._stream.contract import ApiProvider
from pi_sdk._wire.abort import AbortSignal
from pi_sdk.types import Model

__all__ = [
    "FetchContext",
    "FetchModels",
    "FetchedModels",
    "ModelSource",
    "Provider",
    "ProviderAuth",
]

ModelSource: TypeAlias = "Sequence[Model] | Callable[[], Iterable[Model]]"
"""A static catalog: the models themselves, or a function returning them (called when the
collection first reads them, so importing a provider package reads no catalog file)."""


@dataclass(frozen=True, kw_only=True)
class ProviderAuth:
    """Where a provider's API key comes from (pi-ai 1.6 ``ProviderAuth`` with ``envApiKeyAuth``).

    Tried in order: ``api_key`` (explicit), ``get_api_key()`` (a credential callback, e.g. a
    vault or a token that rotates), then the environment variables ``env`` (the first one set
    and non-empty). ``oauth`` is a slot for a later OAuth plugin (pi-ai 1.6 ``lazyOAuth``);
    pi-sdk itself does not read it. The repr never shows a key.
    """

    api_key: str | None = field(default=None, repr=False)
    """An explicit key; wins over every other source."""
    env: tuple[str, ...] = ()
    """Environment variables holding the key, tried in order (pi-ai ``getEnvApiKey``)."""
    get_api_key: Callable[[], str | None] | None = field(default=None, repr=False)
    """Called at each key lookup; return ``None`` to fall through to ``env``. Must not block
    for long (it runs when a call starts)."""
    oauth: Any = field(default=None, repr=False)
    """Reserved for OAuth credentials (a later plugin); not read by pi-sdk."""

    def __repr__(self) -> str:
        explicit = ", api_key=<set>" if self.api_key else ""
        callback = ", get_api_key=<callback>" if self.get_api_key is not None else ""
        return f"ProviderAuth(env={self.env!r}{explicit}{callback})"

    def explicit_key(self) -> str | None:
        """``api_key`` when set and non-empty."""
        return self.api_key or None

    def dynamic_key(self) -> tuple[str | None, str | None]:
        """The key from the callback, else the environment, and where it came from.

        Returns:
            ``(key, source)``: ``source`` is ``"callback"`` or ``"env:NAME"`` (never the key);
            ``(None, None)`` when no source answers.
        """
        if self.get_api_key is not None:
            key = self.get_api_key()
            if key:
                return key, "callback"
        for name in self.env:
            value = os.environ.get(name)
            if value:
                return value, f"env:{name}"
        return None, None


@dataclass(frozen=True, kw_only=True)
class FetchContext:
    """What :data:`FetchModels` gets: the provider, its key, and the cached list's validators.

    ``etag`` and ``last_modified`` are those the store kept from the last successful fetch
    (send them as ``If-None-Match`` / ``If-Modified-Since``); ``timeout_s`` is the whole
    fetch's budget in seconds; honour ``signal`` where the fetch waits.
    """

    provider: Provider
    api_key: str | None = field(default=None, repr=False)
    etag: str | None = None
    last_modified: str | None = None
    timeout_s: float = 10.0
    signal: AbortSignal | None = None


@dataclass(frozen=True, kw_only=True)
class FetchedModels:
    """What :data:`FetchModels` returns: the server's models, or "not modified".

    ``models`` is ``None`` when the server answered 304 (the stored list is still current).
    A field a model does not set explicitly (pydantic ``model_fields_set``) is what the server
    did not say: :meth:`pi_sdk.Models.refresh` fills it from a catalog model with the same id.
    """

    models: list[Model] | None
    etag: str | None = None
    last_modified: str | None = None


FetchModels: TypeAlias = Callable[[FetchContext], Awaitable[FetchedModels]]
"""``async fetch_models(context) -> FetchedModels``: a provider's run-time model list (pi-ai 1.6
``fetchModels``). Raise any exception for a failure (a server down, slow or answering garbage):
:meth:`pi_sdk.Models.refresh` reports it with the provider and URL and keeps the last list."""


@dataclass(frozen=True, kw_only=True)
class Provider:
    """One provider: its id, auth, catalog, run-time model list and wire APIs (pi-ai 1.6).

    Example:
        ```python
        ollama = Provider(
            id="ollama",
            name="Ollama",
            base_url="http://localhost:11434/v1",
            models=[Model(id="llama3.2", api="openai-completions", provider="ollama")],
        )
        models = pi_sdk.Models([ollama])
        ```

    A model's ``provider`` field names its provider; its ``api`` picks the implementation among
    :attr:`apis`, else any implementation of that API in the collection (a gateway provider
    whose models speak an API another package implements needs none of its own).
    """

    id: str
    """The provider id models name in their ``provider`` field (``"anthropic"``)."""
    name: str = ""
    """Display name; ``id`` when empty."""
    base_url: str | None = None
    """When set, every model of this provider is called at this URL (its own ``base_url``
    replaced): a self-hosted server, a proxy, another region."""
    headers: Mapping[str, str] | None = field(default=None, repr=False)
    """Default request headers, under each model's own ``headers`` (may hold credentials: not
    shown in the repr)."""
    auth: ProviderAuth = field(default_factory=ProviderAuth)
    models: ModelSource = ()
    """The static catalog (models whose ``provider`` is :attr:`id`)."""
    fetch_models: FetchModels | None = field(default=None, repr=False)
    """Lists the models a server has at run time (:meth:`pi_sdk.Models.refresh`)."""
    apis: tuple[ApiProvider, ...] = ()
    """The wire-API implementations this provider brings, keyed by their ``api``."""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError("Provider.id must be a non-empty string")
        apis: Any = self.apis
        if isinstance(apis, ApiProvider):  # one implementation: accepted as is
            object.__setattr__(self, "apis", (apis,))
        elif not isinstance(apis, tuple):
            object.__setattr__(self, "apis", tuple(apis))
        for api in self.apis:
            if not isinstance(api, ApiProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(
                    f"Provider({self.id!r}).apis takes ApiProvider objects, got"
                    f" {type(api).__name__}"
                )

    @property
    def display_name(self) -> str:
        """:attr:`name`, or :attr:`id` when no name was given."""
        return self.name or self.id

    def api(self, api: str) -> ApiProvider | None:
        """This provider's implementation of wire API ``api``, or ``None``."""
        for implementation in self.apis:
            if implementation.api == api:
                return implementation
        return None

    def catalog(self) -> list[Model]:
        """The static catalog, read now (a function source is called each time).

        Raises:
            TypeError: an entry is not a :class:`~pi_sdk.Model`.
            ValueError: an entry names another provider in its ``provider`` field.
        """
        source = self.models
        entries = list(source() if callable(source) else source)
        for model in entries:
            if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(
                    f"Provider({self.id!r}).models holds {type(model).__name__}, not a Model"
                )
            if model.provider != self.id:
                raise ValueError(
                    f"Provider({self.id!r}).models holds {model.provider}/{model.id},"
                    f" whose provider is not {self.id!r}"
                )
        return entries

    def configure(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Provider:
        """A copy with a key, base URL, headers or name of its own (``None`` keeps the value).

        Example: ``pi_sdk_openai.openai_provider().configure(api_key=key_a)`` for one collection
        and ``configure(api_key=key_b)`` for another.
        """
        changes: dict[str, Any] = {}
        if api_key is not None:
            changes["auth"] = dataclasses.replace(self.auth, api_key=api_key)
        if base_url is not None:
            changes["base_url"] = base_url
        if headers is not None:
            changes["headers"] = dict(headers)
        if name is not None:
            changes["name"] = name
        return dataclasses.replace(self, **changes)
