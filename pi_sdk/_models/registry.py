"""Registries: API providers keyed by api id, models keyed by (provider, id), API keys.

The registries are questions put to the plugin hooks (``register_api_providers`` /
``register_models``), asked on first access and asked again whenever the active plugin manager
changes (its ``generation``); the answers are cached per manager in between. Registrations made
by hand (:func:`register_api_provider`, :func:`register_model`) belong to the manager active at
the time, sit on top of the plugins' and survive the manager's changes. The core names no vendor:
every provider arrives through the same hooks (pi-mono ``api-registry.ts``, ``models.ts``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pi_sdk._plugins.calling import PerManager
from pi_sdk._plugins.manager import PluginManager, get_plugin_manager
from pi_sdk._stream.contract import ApiProvider
from pi_sdk.errors import ConfigurationError, ModelNotFoundError, ProviderNotFoundError
from pi_sdk.types import Model

__all__ = [
    "get_api_key",
    "get_api_provider",
    "get_api_providers",
    "get_model",
    "get_models",
    "get_providers",
    "register_api_provider",
    "register_model",
    "unregister_api_providers",
]


@dataclass(slots=True)
class _Registrations:
    """One manager's registrations: by hand, and the combined view (plugins, then by hand)."""

    hand_providers: dict[str, ApiProvider] = field(default_factory=dict[str, ApiProvider])
    hand_models: dict[tuple[str, str], Model] = field(default_factory=dict[tuple[str, str], Model])
    providers: dict[str, ApiProvider] = field(default_factory=dict[str, ApiProvider])
    models: dict[tuple[str, str], Model] = field(default_factory=dict[tuple[str, str], Model])


def _collect(pm: PluginManager, state: _Registrations) -> None:
    """Ask every plugin's ``register_*`` hooks (pluggy's call order), then lay hand ones on top."""
    providers: dict[str, ApiProvider] = {}
    models: dict[tuple[str, str], Model] = {}

    def add_provider(
        provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
    ) -> None:
        _check_provider(provider)
        if source_id is not None:
            provider = dataclasses.replace(provider, source_id=source_id)
        _put_provider(providers, provider, replace=replace)

    def add_model(model: Model, *, replace: bool = True) -> None:
        _check_model(model)
        _put_model(models, model, replace=replace)

    pm.hook.register_api_providers(register=add_provider)
    pm.hook.register_models(register=add_model)
    providers.update(state.hand_providers)
    models.update(state.hand_models)
    state.providers, state.models = providers, models


_registrations = PerManager(_Registrations, _collect)


def _current() -> _Registrations:
    return _registrations.current()


def _check_provider(provider: ApiProvider) -> None:
    if not isinstance(provider, ApiProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"register_api_provider() takes an ApiProvider, got {type(provider).__name__}"
            " (models go to register_model / the register_models hook)"
        )
    _check_stream_function(provider)


def _put_provider(into: dict[str, ApiProvider], provider: ApiProvider, *, replace: bool) -> None:
    existing = into.get(provider.api)
    if (
        existing is not None
        and not replace
        and existing.implementation is not provider.implementation
    ):
        raise ConfigurationError(
            f"an API provider for {provider.api!r} is already registered"
            f" (by {existing.source_id or 'unknown'}); pass replace=True to override it"
        )
    into[provider.api] = provider


def register_api_provider(
    provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
) -> None:
    """Register a wire-API implementation by hand, in the active plugin manager's registry.

    It takes precedence over a plugin's provider for the same API id and stays registered
    while plugins come and go (until :func:`unregister_api_providers`).

    Raises:
        TypeError: ``provider`` is not an :class:`ApiProvider`, or its ``stream`` is not an
            async generator function.
        ConfigurationError: another provider already serves ``provider.api`` and ``replace`` is
            false (pi-mono overwrites silently; we refuse, so a clash is visible).
    """
    _check_provider(provider)
    state = _current()
    if source_id is not None:
        provider = dataclasses.replace(provider, source_id=source_id)
    _put_provider(state.providers, provider, replace=replace)
    state.hand_providers[provider.api] = provider


def _check_stream_function(provider: ApiProvider) -> None:
    """Reject a ``stream`` that is not an async generator function, with a clear message."""
    import inspect

    function: Any = provider.stream
    if function is None:
        return  # a call function (ApiProvider.call)
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


def get_api_provider(api: str) -> ApiProvider:
    """Return the provider for ``api``.

    Raises:
        ProviderNotFoundError: none is registered (is its plugin package installed?).
    """
    providers = _current().providers
    try:
        return providers[api]
    except KeyError:
        known = ", ".join(sorted(providers)) or "none"
        raise ProviderNotFoundError(
            f"No API provider registered for api: {api} (registered: {known}). Provider "
            "packages (pi-sdk-anthropic, pi-sdk-openai, pi-sdk-google, ...) register through the "
            "pi_sdk entry-point group when installed; with a plugin manager of your own, "
            "register their modules in it (or call register_api_provider)."
        ) from None


def get_api_providers() -> list[ApiProvider]:
    """Return every registered provider."""
    return list(_current().providers.values())


def unregister_api_providers(source_id: str) -> None:
    """Remove every provider registered by hand with ``source_id``.

    A plugin's providers leave with the plugin (``pm.unregister(...)``); a plugin provider a
    removed hand registration had overridden is served again.
    """
    state = _current()
    removed = [a for a, p in state.hand_providers.items() if p.source_id == source_id]
    for api in removed:
        del state.hand_providers[api]
    if removed:
        _registrations.invalidate()


def register_model(model: Model, *, replace: bool = True) -> None:
    """Register a model by hand under ``(model.provider, model.id)``, e.g. a custom proxy model.

    Like :func:`register_api_provider`, it belongs to the active plugin manager's registry and
    takes precedence over a plugin's model with the same key.

    Raises:
        TypeError: ``model`` is not a :class:`Model`.
        ConfigurationError: the key exists and ``replace`` is false.
    """
    _check_model(model)
    state = _current()
    _put_model(state.models, model, replace=replace)
    state.hand_models[(model.provider, model.id)] = model


def _check_model(model: Model) -> None:
    if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"register_model() takes a Model, got {type(model).__name__}")


def _put_model(into: dict[tuple[str, str], Model], model: Model, *, replace: bool) -> None:
    key = (model.provider, model.id)
    if key in into and not replace:
        raise ConfigurationError(f"model {model.provider}/{model.id} is already registered")
    into[key] = model


def get_model(provider: str, model_id: str) -> Model:
    """Return the model registered as ``(provider, model_id)``.

    Raises:
        ModelNotFoundError: unknown; the message suggests close matches.
    """
    models = _current().models
    try:
        return models[(provider, model_id)]
    except KeyError:
        ids = [m for p, m in models if p == provider]
        import difflib

        hint = [f"{provider}/{m}" for m in difflib.get_close_matches(model_id, ids, n=3)]
        extra = f"; did you mean {', '.join(hint)}?" if hint else ""
        if not ids:
            extra = f"; no models registered for provider {provider!r}"
        raise ModelNotFoundError(f"unknown model {provider}/{model_id}{extra}") from None


def get_models(provider: str | None = None) -> list[Model]:
    """Return the registered models, of one provider or all, sorted by (provider, id)."""
    models = _current().models
    return [m for k, m in sorted(models.items()) if provider is None or k[0] == provider]


def get_providers() -> list[str]:
    """Return the provider names that have models, sorted."""
    return sorted({p for p, _ in _current().models})


def get_api_key(provider: str) -> str | None:
    """Return the API key for ``provider`` from the ``get_api_key`` plugin hook (first answer)."""
    key: Any = get_plugin_manager().hook.get_api_key(provider=provider)
    return key if isinstance(key, str) and key else None
