"""Models collections: providers held together, isolated from every other collection.

pi-ai 1.6 ``createModels(...)``: a :class:`Models` holds :class:`~pi_sdk.Provider` objects and
answers for them: their models (the static catalogs, the lists fetched at run time, models added
by hand), their API keys, and the calls (``stream``, ``complete``). Several collections live in
one process without sharing anything: two Azure tenants side by side, a test collection beside
the real one. The module-level API (``pi_sdk.stream``, ``pi_sdk.get_model``, ...) is the default
collection (:func:`pi_sdk.default_models`), built from the installed plugins.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pi_sdk._models.hooks import manager_of, observe_call, run_payload_hooks
from pi_sdk._models.merge import merge_provider, with_provider_settings
from pi_sdk._models.rate_limit import RateLimit, RateLimiter
from pi_sdk._models.refresh import ModelsStore, RefreshResult, refresh_providers
from pi_sdk._models.start import start_call
from pi_sdk._plugins.manager import PluginManager
from pi_sdk._stream.call_scope import CallScope
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.provider import Provider
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.argument_kinds import check_call_arguments
from pi_sdk.errors import ConfigurationError, ModelNotFoundError, ProviderNotFoundError
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

if TYPE_CHECKING:
    from pi_sdk._models.count_tokens import TokenCount

__all__ = [
    "AuthCheck",
    "ModelOrigin",
    "Models",
    "PluginsChoice",
    "check_api_provider",
    "check_stream_function",
]

ModelOrigin: TypeAlias = Literal["catalog", "fetched", "hand"]
"""Where a collection's model comes from: a provider's static catalog (or a plugin's
``register_models``), the list :meth:`Models.refresh` fetched (or read from the store), or
``register_model``."""
_Views: TypeAlias = tuple[
    dict[tuple[str, str], Model], dict[str, ApiProvider], dict[tuple[str, str], ModelOrigin]
]

PluginsChoice: TypeAlias = PluginManager | Literal["active"] | None
"""Whose ``on_payload`` and ``on_model_call`` hooks a collection's calls run: the active plugin
manager at each call (``"active"``), a given one, or none."""


@dataclass(frozen=True)
class AuthCheck:
    """Whether a provider has an API key in a collection, and where it comes from (never the key).

    ``source``: ``"explicit"`` (``ProviderAuth.api_key``), ``"plugin"`` (a ``get_api_key`` hook,
    the default collection only), ``"callback"``, ``"env:NAME"``, or ``None`` when no key is
    found (``available`` is then false; a provider needing no key, such as a local server, may
    still work).
    """

    provider: str
    available: bool
    source: str | None


class Models:
    """A collection of providers: models, keys and calls (pi-ai 1.6 ``Models``).

    Example:
        ```python
        import pi_sdk
        from pi_sdk_anthropic import anthropic_provider

        work = pi_sdk.Models([anthropic_provider().configure(api_key=work_key)])
        model = work.get_model("anthropic", "claude-sonnet-4-5")
        message = await work.complete(model, context)
        ```

    Providers that share an id are merged when added together (a gateway's models may come from
    several packages, one per wire API): their catalogs and wire APIs join, and a setting two of
    them give differently is a :class:`~pi_sdk.ConfigurationError`. Reads (``get_model``,
    ``models``) are synchronous and cheap; only :meth:`refresh` does I/O. Thread-safe for reads;
    changes (``add``, ``register_model``...) take a lock.
    """

    def __init__(
        self,
        providers: Iterable[Provider] = (),
        *,
        plugins: PluginsChoice = "active",
        store: ModelsStore | None = None,
        rate_limits: RateLimiter | Mapping[str, RateLimit] | None = None,
    ) -> None:
        """Hold ``providers``.

        Args:
            providers: The providers; those sharing an id are merged (class doc).
            plugins: Whose ``on_payload`` and ``on_model_call`` hooks calls run (default: the
                active plugin manager's, so installed tracing and payload plugins see every
                collection's calls). Keys and models never come from plugins here.
            store: Where :meth:`refresh` keeps fetched model lists (etag, last-modified);
                ``None``: in memory only.
            rate_limits: Client-side rate limits every call of this collection waits for: a
                :class:`~pi_sdk.RateLimiter` (pass one to several collections to share it), or
                ``{"provider" or "provider/model-id": RateLimit}`` for a limiter of its own.

        Raises:
            ConfigurationError: two providers with one id disagree on a setting.
        """
        self._lock = threading.RLock()
        self._providers: dict[str, Provider] = {}
        self._hand_apis: dict[str, ApiProvider] = {}
        self._hand_models: dict[tuple[str, str], Model] = {}
        self._fetched: dict[str, list[Model]] = {}
        self._plugins: PluginsChoice = plugins
        self.store = store
        """Where :meth:`refresh` keeps what it fetched (``None``: in memory only)."""
        self._cache: _Views | None = None
        self.rate_limiter: RateLimiter = (
            rate_limits if isinstance(rate_limits, RateLimiter) else RateLimiter(rate_limits)
        )
        """The client-side rate limits of this collection's calls (empty: none);
        ``models.rate_limiter.set("openai", RateLimit(requests=500))`` changes them."""
        for provider in providers:
            self._merge_in(provider)

    def __repr__(self) -> str:
        return f"Models(providers={sorted(self._providers)!r})"

    # -- providers ------------------------------------------------------------------------

    def add(self, provider: Provider, *, replace: bool = False) -> None:
        """Add ``provider``, merged into one with the same id (or replacing it: ``replace``).

        Raises:
            TypeError: not a :class:`~pi_sdk.Provider`.
            ConfigurationError: merging, the two disagree on a setting.
        """
        if not isinstance(provider, Provider):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"Models.add() takes a Provider, got {type(provider).__name__}")
        with self._lock:
            if replace:
                self._providers.pop(provider.id, None)
                self._fetched.pop(provider.id, None)
            self._merge_in(provider)

    def remove(self, provider_id: str) -> None:
        """Remove the provider ``provider_id`` (its models and fetched list go with it)."""
        with self._lock:
            self._providers.pop(provider_id, None)
            self._fetched.pop(provider_id, None)
            self._changed()

    def provider(self, provider_id: str) -> Provider:
        """The provider ``provider_id``.

        Raises:
            ProviderNotFoundError: not in this collection (the message lists what is).
        """
        found = self._all_providers().get(provider_id)
        if found is None:
            known = ", ".join(sorted(self._all_providers())) or "none"
            raise ProviderNotFoundError(f"no provider {provider_id!r} (providers: {known})")
        return found

    def providers(self) -> list[Provider]:
        """Every provider, sorted by id."""
        return [p for _, p in sorted(self._all_providers().items())]

    # -- models ---------------------------------------------------------------------------

    def get_model(self, provider: str, model_id: str) -> Model:
        """The model ``provider/model_id``, with its provider's base URL and headers applied.

        Raises:
            ModelNotFoundError: unknown; the message suggests close matches.
        """
        models = self._views()[0]
        found = models.get((provider, model_id))
        if found is not None:
            return found
        ids = [m for p, m in models if p == provider]
        hint = [f"{provider}/{m}" for m in difflib.get_close_matches(model_id, ids, n=3)]
        extra = f"; did you mean {', '.join(hint)}?" if hint else ""
        if not ids:
            extra = f"; no models registered for provider {provider!r}"
        raise ModelNotFoundError(f"unknown model {provider}/{model_id}{extra}") from None

    def models(self, provider: str | None = None) -> list[Model]:
        """The models, of one provider or all, sorted by (provider, id)."""
        models = self._views()[0]
        return [m for k, m in sorted(models.items()) if provider is None or k[0] == provider]

    def origin(self, provider: str, model_id: str) -> ModelOrigin:
        """Where the model ``provider/model_id`` comes from (:data:`ModelOrigin`).

        Raises:
            ModelNotFoundError: unknown (as :meth:`get_model`).
        """
        origin = self._views()[2].get((provider, model_id))
        if origin is None:
            self.get_model(provider, model_id)  # raises, with close matches
        assert origin is not None
        return origin

    def register_model(self, model: Model, *, replace: bool = True) -> None:
        """Add one model by hand (a custom deployment); it wins over a catalog model's key.

        Raises:
            TypeError: not a :class:`~pi_sdk.Model`.
            ConfigurationError: ``(provider, id)`` exists and ``replace`` is false.
        """
        if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"register_model() takes a Model, got {type(model).__name__}")
        key = (model.provider, model.id)
        with self._lock:
            if not replace and key in self._views()[0]:
                raise ConfigurationError(f"model {model.provider}/{model.id} is already registered")
            self._hand_models[key] = model
            self._changed()

    # -- wire APIs ------------------------------------------------------------------------

    def register_api_provider(
        self, provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
    ) -> None:
        """Register a wire-API implementation by hand; it serves ``provider.api`` for every model.

        Raises:
            TypeError: not an :class:`~pi_sdk.provider.ApiProvider`, or its ``stream`` is not an
                async generator function.
            ConfigurationError: another hand registration serves ``provider.api`` and ``replace``
                is false (pi-mono overwrites silently; pi-sdk refuses so a clash is visible).
        """
        with self._lock:
            admit_api_provider(self._hand_apis, provider, replace=replace, source_id=source_id)
            self._changed()

    def unregister_api_providers(self, source_id: str) -> None:
        """Remove the hand-registered implementations registered with ``source_id``."""
        with self._lock:
            for api in [a for a, p in self._hand_apis.items() if p.source_id == source_id]:
                del self._hand_apis[api]
            self._changed()

    def api_provider(self, api: str, provider: str | None = None) -> ApiProvider:
        """The implementation that serves wire API ``api`` (for a model of ``provider``).

        Precedence: a hand registration, then the model's provider's own implementation, then
        any implementation of ``api`` in the collection.

        Raises:
            ProviderNotFoundError: none (is its provider package installed?).
        """
        found = self._hand_apis.get(api)
        if found is None and provider is not None:
            owner = self._all_providers().get(provider)
            found = owner.api(api) if owner is not None else None
        if found is None:
            found = self._views()[1].get(api)
        if found is None:
            known = ", ".join(sorted(self._views()[1])) or "none"
            raise ProviderNotFoundError(
                f"No API provider registered for api: {api} (registered: {known}). Provider "
                "packages (pi-sdk-anthropic, pi-sdk-openai, pi-sdk-google, ...) register through "
                "the pi_sdk entry-point group when installed; in a Models collection of your own, "
                "add their Provider (or call register_api_provider)."
            )
        return found

    def api_providers(self) -> list[ApiProvider]:
        """Every wire-API implementation of the collection, one per API id."""
        return list(self._views()[1].values())

    # -- keys -----------------------------------------------------------------------------

    def get_api_key(self, provider: str) -> str | None:
        """The API key for ``provider``: its auth's explicit key, callback, then environment."""
        return self._key(provider)[0]

    def check_auth(self, provider: str) -> AuthCheck:
        """Whether ``provider`` has a key here and where it comes from (pi-ai ``checkAuth``)."""
        key, source = self._key(provider)
        return AuthCheck(provider=provider, available=bool(key), source=source)

    def _key(self, provider: str) -> tuple[str | None, str | None]:
        owner = self._all_providers().get(provider)
        if owner is None:
            return None, None
        explicit = owner.auth.explicit_key()
        if explicit:
            return explicit, "explicit"
        return owner.auth.dynamic_key()

    # -- calls ----------------------------------------------------------------------------

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessageEventStream:
        """Call ``model`` and return its normalized event stream (see :func:`pi_sdk.stream`).

        The key is ``options.api_key``, else this collection's key for ``model.provider``
        (:meth:`get_api_key`), handed to the provider in the options.

        With ``options.fallback`` the call follows a :class:`~pi_sdk.FallbackPolicy`
        (:mod:`pi_sdk._models.fallback_stream`): the stream is a ``FallbackStream``.

        Raises:
            TypeError: an argument of the wrong kind (a ``"provider/id"`` string for the
                model, a list for the context, a dict for the options).
            ProviderNotFoundError: no implementation of ``model.api`` here (synchronously, as
                pi-mono throws).
            ValueError, TypeError, ModelNotFoundError: a bad ``options.fallback`` (a model
                twice with the same options, an unknown one, not a policy or list).
        """
        check_call_arguments(model, context, options)
        options = options or StreamOptions()
        if options.fallback is not None:
            return self._fallback_stream(model, context, options)
        implementation = self.api_provider(model.api, model.provider)
        if not options.api_key:
            key = self.get_api_key(model.provider)
            if key:
                options = dataclasses.replace(options, api_key=key)
        plugins = self._plugins
        gate, options = self.rate_limiter.gate(model, context, options)
        return start_call(
            implementation,
            model,
            context,
            options,
            CallScope(api_key=self.get_api_key, payload_hooks=self.apply_payload_hooks, gate=gate),
            None if plugins is None else observe_call(model, context, options, plugins),
        )

    def _fallback_stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        from pi_sdk._models.fallback import resolve_fallback  # lazy: only fallback calls
        from pi_sdk._models.fallback_stream import FallbackRun, FallbackStream

        policy = resolve_fallback(options.fallback, self)
        self.api_provider(model.api, model.provider)  # raises, as a plain call does
        chain = policy.chain(model, collection=self)
        run = FallbackRun(self.stream, chain, context, options, policy)
        return FallbackStream(run)

    async def complete(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessage:
        """``await self.stream(...).result()``: the final message; never raises for API failures."""
        return await self.stream(model, context, options).result()

    async def count_tokens(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> TokenCount:
        """The input tokens a call of ``model`` with ``context`` takes (issue 28, item 5).

        The vendor's counting endpoint where the wire API has one (Anthropic, Gemini, OpenAI
        Responses: ``ApiProvider.count_tokens``), else the estimate; the answer says which
        (:class:`~pi_sdk.TokenCount`). A failing endpoint falls back to the estimate and says
        why; this never raises for it.

        Raises:
            ProviderNotFoundError: no implementation of ``model.api`` here.
        """
        from pi_sdk._models.count_tokens import count_with, with_key  # lazy: rarely used

        implementation = self.api_provider(model.api, model.provider)
        options = with_key(options, lambda: self.get_api_key(model.provider))
        return await count_with(implementation, model, context, options, self.get_api_key)

    async def apply_payload_hooks(
        self, payload: dict[str, Any], model: Model, options: StreamOptions
    ) -> dict[str, Any]:
        """Run this collection's ``on_payload`` plugin hooks, then ``options.on_payload``.

        Raises:
            TypeError: a hook returned something other than ``None`` or a dict.
        """
        return await run_payload_hooks(payload, model, options, manager_of(self._plugins))

    # -- refresh --------------------------------------------------------------------------

    async def refresh(
        self,
        providers: Iterable[str] | None = None,
        *,
        allow_network: bool = True,
        force: bool = False,
        timeout_s: float = 10.0,
        signal: AbortSignal | None = None,
    ) -> RefreshResult:
        """List the models of providers that can fetch them (pi-ai 1.6 ``Models.refresh``).

        Each provider with a ``fetch_models`` (of those named in ``providers``; the others are
        left as they are) is asked concurrently, and the server's list replaces the one this
        collection had; a model field the server did not give is taken from a catalog model
        with the same id (:func:`~pi_sdk._models.refresh.fill_from_catalog`). With a
        :attr:`store`, each list is kept as the server gave it with its validators (etag,
        last-modified): the next refresh sends them, and a server answering "not modified"
        (HTTP 304) keeps the stored list (the validators it sends replace the stored ones, RFC
        9111 §4.3.4); ``allow_network=False`` reads the stored lists only
        (how an application serves them offline, at start-up); ``force=True`` sends no
        validators. Nothing but this method does I/O for model lists.

        Args:
            providers: Provider ids; ``None``: every provider.
            allow_network: ``False``: the stored lists only, no request.
            force: Ask for the whole list even when a stored one has validators.
            timeout_s: Each provider's budget for its whole fetch, in seconds.
            signal: Aborting it ends the refresh at once (``aborted`` set); providers already
                answered keep their new lists.

        Returns:
            A :class:`~pi_sdk.RefreshResult`: the providers refreshed and where each list came
            from, and per failed provider a message naming it and its URL (a key never shows).
            Never raises for one bad provider: the others are refreshed and a failed one keeps
            its previous list.

        Raises:
            ProviderNotFoundError: ``providers`` names a provider not in the collection.
        """
        chosen = self._all_providers()
        if providers is not None:
            names = list(providers)
            for name in names:
                self.provider(name)  # raises for an unknown one
            chosen = {name: chosen[name] for name in names}
        result, fetched = await refresh_providers(
            list(chosen.values()),
            catalog=lambda: self._static_models(),
            api_key=self.get_api_key,
            store=self.store,
            allow_network=allow_network,
            force=force,
            timeout_s=timeout_s,
            signal=signal,
        )
        with self._lock:
            self._fetched.update(fetched)
            self._changed()
        return result

    def refresh_sync(self, providers: Iterable[str] | None = None, **kwargs: Any) -> RefreshResult:
        """:meth:`refresh` for scripts.

        Raises:
            RuntimeError: called inside a running event loop (``await models.refresh()``).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.refresh(providers, **kwargs))
        raise RuntimeError("refresh_sync() cannot run inside a running event loop")

    # -- internals ------------------------------------------------------------------------

    def _merge_in(self, provider: Provider) -> None:
        existing = self._providers.get(provider.id)
        self._providers[provider.id] = (
            provider if existing is None else merge_provider(existing, provider)
        )
        self._changed()

    def _changed(self) -> None:
        self._cache = None

    def _all_providers(self) -> dict[str, Provider]:
        """The providers (a subclass may add some it collects on demand)."""
        return self._providers

    def _extra_apis(self) -> Iterable[ApiProvider]:
        """Implementations registered without a provider (a subclass adds the plugins')."""
        return ()

    def _extra_models(self) -> Iterable[Model]:
        """Models registered without a provider object (a subclass adds the plugins')."""
        return ()

    def _static_models(self) -> list[Model]:
        """Every catalog model, provider settings applied (what refresh fills gaps from)."""
        models: list[Model] = list(self._extra_models())
        for provider in self._all_providers().values():
            models += with_provider_settings(provider, provider.catalog())
        return models

    def _views(self) -> _Views:
        cache = self._cache
        if cache is not None:
            return cache
        with self._lock:
            models: dict[tuple[str, str], Model] = {}
            origins: dict[tuple[str, str], ModelOrigin] = {}
            for model in self._static_models():
                models[(model.provider, model.id)] = model
                origins[(model.provider, model.id)] = "catalog"
            providers = self._all_providers()
            for provider_id, fetched in self._fetched.items():
                owner = providers.get(provider_id)
                if owner is not None:
                    for model in with_provider_settings(owner, fetched):
                        models[(model.provider, model.id)] = model
                        origins[(model.provider, model.id)] = "fetched"
            models.update(self._hand_models)
            origins.update(dict.fromkeys(self._hand_models, "hand"))
            apis: dict[str, ApiProvider] = {}
            for api in self._extra_apis():
                apis.setdefault(api.api, api)
            for provider in providers.values():
                for api in provider.apis:
                    if not api.exclusive:
                        apis.setdefault(api.api, api)
            apis.update(self._hand_apis)
            self._cache = (models, apis, origins)
            return self._cache


def admit_api_provider(
    apis: dict[str, ApiProvider],
    provider: ApiProvider,
    *,
    replace: bool,
    source_id: str | None,
) -> None:
    """Check ``provider`` and put it in ``apis`` under its ``api``, tagged with ``source_id``.

    Raises:
        TypeError: see :func:`check_api_provider`.
        ConfigurationError: ``apis`` holds another implementation of ``provider.api`` and
            ``replace`` is false (pi-mono overwrites silently; pi-sdk refuses so a clash is
            visible). The same implementation registered again is not a clash, and keeps
            its ``source_id`` unless a new one is given.
    """
    check_api_provider(provider)
    existing = apis.get(provider.api)
    if source_id is None and existing is not None:
        if existing.implementation is provider.implementation:
            source_id = existing.source_id  # registered again: still the same source's
    if source_id is not None:
        provider = dataclasses.replace(provider, source_id=source_id)
    if (
        existing is not None
        and not replace
        and existing.implementation is not provider.implementation
    ):
        raise ConfigurationError(
            f"an API provider for {provider.api!r} is already registered"
            f" (by {existing.source_id or 'unknown'}); pass replace=True to override it"
        )
    apis[provider.api] = provider


def check_api_provider(provider: ApiProvider) -> None:
    """Reject what is not an :class:`ApiProvider` with a usable ``stream``, with a clear message.

    Raises:
        TypeError: not an ``ApiProvider`` (models go to ``register_model``), or its ``stream``
            is a coroutine or sync generator function.
    """
    if not isinstance(provider, ApiProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"register_api_provider() takes an ApiProvider, got {type(provider).__name__}"
            " (models go to register_model / the register_models hook)"
        )
    check_stream_function(provider)


def check_stream_function(provider: ApiProvider) -> None:
    """Reject a ``stream`` that is not an async generator function, with a clear message."""
    import inspect

    function: Any = provider.stream
    if function is None:
        return  # a call function (ApiProvider.call), checked by ApiProvider itself
    target = getattr(function, "__func__", function)
    # Other callables (async generator functions, partials, objects returning an async
    # iterator) are accepted; a coroutine or a sync generator can never be iterated with anext.
    if not (inspect.iscoroutinefunction(target) or inspect.isgeneratorfunction(target)):
        return
    raise TypeError(
        f"ApiProvider(api={provider.api!r}).stream must be an async generator function"
        " (`async def stream(model, context, options): ... yield event`), got"
        f" {getattr(target, '__qualname__', type(function).__name__)}"
    )
