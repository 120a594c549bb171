"""The default collection: the providers of the installed plugins, behind the module-level API.

``pi_sdk.stream``, ``pi_sdk.get_model``, ``pi_sdk.register_model``... act on
:func:`default_models`: a :class:`~pi_sdk.Models` built from the active plugin manager's hooks
(pi-ai 1.6 keeps its global API the same way, as ``@earendil-works/pi-ai/compat`` over a default
``Models``). Its providers are those the plugins register (``register_providers``, which an
entry point naming a ``Provider`` feeds), plus the older hooks' wire APIs and models
(``register_api_providers``, ``register_models``: a model whose provider no plugin registers gets
a provider of its own). Keys: a provider's explicit key, then the ``get_api_key`` hooks (the CLI's
key file among them), then the provider's callback and environment variables.

The registries are questions put to the hooks (simonw/llm): asked on first access and again
whenever the active manager changes (its ``generation``), answers cached per manager in between.
What is registered by hand (``register_model``, ``register_api_provider``, ``register_provider``)
belongs to the manager active at the time, sits on top of the plugins' and survives their changes.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from pi_sdk._models.collection import Models, admit_api_provider
from pi_sdk._models.merge import merge_provider
from pi_sdk._plugins.calling import PerManager
from pi_sdk._plugins.manager import PluginManager
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.provider import Provider
from pi_sdk.errors import ConfigurationError
from pi_sdk.types import Model

__all__ = [
    "default_models",
    "get_api_key",
    "get_api_provider",
    "get_api_providers",
    "get_model",
    "get_models",
    "get_providers",
    "register_api_provider",
    "register_model",
    "register_provider",
    "unregister_api_providers",
]


class _PluginModels(Models):
    """One plugin manager's default collection: its hooks' answers under the hand registrations."""

    def __init__(self) -> None:
        super().__init__(plugins="active")
        self._manager: weakref.ref[PluginManager] | None = None
        self._plugin_providers: dict[str, Provider] = {}
        self._plugin_apis: dict[str, ApiProvider] = {}
        self._plugin_models: list[Model] = []
        self._replaced: set[str] = set()
        self._merged: dict[str, Provider] | None = None

    def collect(self, pm: PluginManager) -> None:
        """Ask ``pm``'s registration hooks again (the manager changed)."""
        providers: dict[str, Provider] = {}
        apis: dict[str, ApiProvider] = {}
        models: list[Model] = []

        def add_provider(provider: Provider, *, replace: bool = False) -> None:
            if not isinstance(provider, Provider):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"register() takes a Provider, got {type(provider).__name__}")
            existing = providers.get(provider.id)
            providers[provider.id] = (
                provider if existing is None or replace else merge_provider(existing, provider)
            )

        def add_api(
            provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
        ) -> None:
            admit_api_provider(apis, provider, replace=replace, source_id=source_id)

        def add_model(model: Model, *, replace: bool = True) -> None:
            if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"register_model() takes a Model, got {type(model).__name__}")
            if not replace and any(
                (m.provider, m.id) == (model.provider, model.id) for m in models
            ):
                raise ConfigurationError(f"model {model.provider}/{model.id} is already registered")
            models.append(model)

        pm.hook.register_providers(register=add_provider)
        pm.hook.register_api_providers(register=add_api)
        pm.hook.register_models(register=add_model)
        with self._lock:
            self._manager = weakref.ref(pm)
            self._plugin_providers, self._plugin_apis = providers, apis
            self._plugin_models = models
            self._changed()

    def register_provider(self, provider: Provider, *, replace: bool = False) -> None:
        """Add ``provider`` by hand: merged with the plugins' one of that id, or replacing it."""
        with self._lock:
            if replace:
                self._replaced.add(provider.id)
            self.add(provider, replace=replace)

    def _changed(self) -> None:
        super()._changed()
        self._merged = None

    def _all_providers(self) -> dict[str, Provider]:
        merged = self._merged
        if merged is not None:
            return merged
        with self._lock:
            merged = {
                pid: p for pid, p in self._plugin_providers.items() if pid not in self._replaced
            }
            for model in self._plugin_models:  # the older hooks: a provider per model's id
                merged.setdefault(model.provider, Provider(id=model.provider))
            for pid, provider in self._providers.items():
                present = merged.get(pid)
                merged[pid] = provider if present is None else merge_provider(present, provider)
            self._merged = merged
            return merged

    def _extra_apis(self) -> Iterable[ApiProvider]:
        return self._plugin_apis.values()

    def _extra_models(self) -> Iterable[Model]:
        return self._plugin_models

    def _key(self, provider: str) -> tuple[str | None, str | None]:
        owner = self._all_providers().get(provider)
        if owner is not None and owner.auth.explicit_key():
            return owner.auth.explicit_key(), "explicit"
        pm = self._manager() if self._manager is not None else None
        if pm is not None:
            key: Any = pm.hook.get_api_key(provider=provider)
            if isinstance(key, str) and key:
                return key, "plugin"
        if owner is None:
            return None, None
        return owner.auth.dynamic_key()


def _collect(pm: PluginManager, state: _PluginModels) -> None:
    state.collect(pm)


_collections = PerManager(_PluginModels, _collect)


def default_models() -> Models:
    """The default collection: the active plugin manager's providers (module doc).

    The same object while the active manager is unchanged; a new one for a new manager
    (``use_plugin_manager()`` in tests). Entry points are loaded on the first call.
    """
    return _collections.current()


def _default() -> _PluginModels:
    return _collections.current()


def register_provider(provider: Provider, *, replace: bool = False) -> None:
    """Add a :class:`~pi_sdk.Provider` to the default collection by hand.

    It is merged with a plugin's provider of the same id (its models and wire APIs join), or
    replaces it (``replace=True``), and stays while plugins come and go.

    Raises:
        TypeError: not a ``Provider``.
        ConfigurationError: merging, the two disagree on a setting (base URL, explicit key...).
    """
    _default().register_provider(provider, replace=replace)


def register_api_provider(
    provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
) -> None:
    """Register a wire-API implementation by hand in the default collection.

    It takes precedence over every plugin's implementation of the same API id and stays
    registered while plugins come and go (until :func:`unregister_api_providers`).

    Raises:
        TypeError: ``provider`` is not an :class:`~pi_sdk.provider.ApiProvider`, or its
            ``stream`` is not an async generator function.
        ConfigurationError: another hand registration already serves ``provider.api`` and
            ``replace`` is false (pi-mono overwrites silently; we refuse, so a clash is visible).
    """
    _default().register_api_provider(provider, replace=replace, source_id=source_id)


def unregister_api_providers(source_id: str) -> None:
    """Remove every implementation registered by hand with ``source_id``.

    A plugin's implementations leave with the plugin (``pm.unregister(...)``); a plugin
    implementation a removed hand registration had overridden is served again.
    """
    _default().unregister_api_providers(source_id)


def get_api_provider(api: str) -> ApiProvider:
    """The implementation serving wire API ``api`` in the default collection.

    Raises:
        ProviderNotFoundError: none is registered (is its provider package installed?).
    """
    return _default().api_provider(api)


def get_api_providers() -> list[ApiProvider]:
    """Every wire-API implementation of the default collection, one per API id."""
    return _default().api_providers()


def register_model(model: Model, *, replace: bool = True) -> None:
    """Register a model by hand under ``(model.provider, model.id)``, e.g. a custom proxy model.

    It belongs to the active plugin manager's default collection and takes precedence over a
    plugin's model with the same key.

    Raises:
        TypeError: ``model`` is not a :class:`~pi_sdk.Model`.
        ConfigurationError: the key exists and ``replace`` is false.
    """
    _default().register_model(model, replace=replace)


def get_model(provider: str, model_id: str) -> Model:
    """The model registered as ``(provider, model_id)`` in the default collection.

    Raises:
        ModelNotFoundError: unknown; the message suggests close matches.
    """
    return _default().get_model(provider, model_id)


def get_models(provider: str | None = None) -> list[Model]:
    """The default collection's models, of one provider or all, sorted by (provider, id)."""
    return _default().models(provider)


def get_providers() -> list[str]:
    """The provider ids that have models in the default collection, sorted."""
    return sorted({model.provider for model in _default().models()})


def get_api_key(provider: str) -> str | None:
    """The default collection's API key for ``provider`` (module doc: where it comes from)."""
    return _default().get_api_key(provider)
