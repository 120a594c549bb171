"""Registries: API providers keyed by api id, models keyed by (provider, id), API keys.

Filled from plugins (``register_api_providers`` / ``register_models`` hooks) on first access, and
by hand through :func:`register_api_provider` / :func:`register_model`. The core names no vendor:
every provider arrives through the same hooks (pi-mono ``api-registry.ts``, ``models.ts``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from pi_sdk.errors import ConfigurationError, ModelNotFoundError, ProviderNotFoundError
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model, Usage

__all__ = [
    "ApiProvider",
    "RequestRecognizer",
    "StreamFunction",
    "calculate_cost",
    "get_api_key",
    "get_api_provider",
    "get_api_providers",
    "get_model",
    "get_models",
    "get_providers",
    "load_models_json",
    "register_api_provider",
    "register_model",
    "unregister_api_providers",
]

StreamFunction: TypeAlias = Callable[
    [Model, Context, StreamOptions], AsyncIterator[AssistantMessageEvent]
]
"""``stream(model, context, options)``: an async generator of events.

Contract: yield ``start`` once the request is accepted (HTTP headers in), then content events,
then one terminal ``done``/``error``. Raise :class:`pi_sdk.ProviderError` (with ``retryable``)
for failures, or any exception: the core turns it into the terminal ``error`` event, keeps the
partial message, retries retryable failures that happen before ``start``, and handles aborts by
closing the generator. Import the vendor SDK lazily, inside the function.
"""


RequestRecognizer: TypeAlias = Callable[[str, str, Any], "Model | None"]
"""``recognize(method, uri, body) -> Model | None``: ``body`` is the parsed JSON request body
(or ``None``). Return the model (id, ``base_url`` from the URI, api, provider) that sends such a
request, or ``None`` when the request is not this API's."""


@dataclass(frozen=True, kw_only=True)
class ApiProvider:
    """One wire-API implementation (pi-mono ``ApiProvider``)."""

    api: str
    """API id, e.g. ``"anthropic-messages"``."""
    stream: StreamFunction
    recognize: RequestRecognizer | None = None
    """For ``pi-sdk replay``: given a recorded request, the model that would have sent it."""
    source_id: str | None = None
    """Who registered it (a plugin name); see :func:`unregister_api_providers`."""


_providers: dict[str, ApiProvider] = {}
_models: dict[tuple[str, str], Model] = {}
_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from pi_sdk.plugins._manager import get_plugin_manager

    hook = get_plugin_manager().hook
    hook.register_api_providers(register=register_api_provider)
    hook.register_models(register=register_model)


def is_loaded() -> bool:
    """Whether the plugins' registrations are in (the first access since :func:`reset` ran)."""
    return _loaded


def reset() -> None:
    """Forget every registration; plugins register again on next access."""
    global _loaded
    _providers.clear()
    _models.clear()
    _loaded = False


def register_api_provider(
    provider: ApiProvider, *, replace: bool = False, source_id: str | None = None
) -> None:
    """Register a wire-API implementation.

    Raises:
        TypeError: ``provider`` is not an :class:`ApiProvider`, or its ``stream`` is not an
            async generator function.
        ConfigurationError: another provider already serves ``provider.api`` and ``replace`` is
            false (pi-mono overwrites silently; we refuse, so a clash is visible).
    """
    if not isinstance(provider, ApiProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"register_api_provider() takes an ApiProvider, got {type(provider).__name__}"
            " (models go to register_model / the register_models hook)"
        )
    _check_stream_function(provider)
    _ensure_loaded()
    if source_id is not None:
        provider = dataclasses.replace(provider, source_id=source_id)
    existing = _providers.get(provider.api)
    if existing is not None and not replace and existing.stream is not provider.stream:
        raise ConfigurationError(
            f"an API provider for {provider.api!r} is already registered"
            f" (by {existing.source_id or 'unknown'}); pass replace=True to override it"
        )
    _providers[provider.api] = provider


def _check_stream_function(provider: ApiProvider) -> None:
    """Reject a ``stream`` that is not an async generator function, with a clear message."""
    import inspect

    function: Any = provider.stream
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
    _ensure_loaded()
    try:
        return _providers[api]
    except KeyError:
        known = ", ".join(sorted(_providers)) or "none"
        raise ProviderNotFoundError(
            f"No API provider registered for api: {api} (registered: {known}). Provider "
            "packages (pi-sdk-anthropic, pi-sdk-openai, pi-sdk-google, ...) register through the "
            "pi_sdk entry-point group when installed; with a plugin manager of your own, "
            "register their modules in it (or call register_api_provider)."
        ) from None


def get_api_providers() -> list[ApiProvider]:
    """Return every registered provider."""
    _ensure_loaded()
    return list(_providers.values())


def unregister_api_providers(source_id: str) -> None:
    """Remove every provider registered with ``source_id``."""
    for api in [a for a, p in _providers.items() if p.source_id == source_id]:
        del _providers[api]


def register_model(model: Model, *, replace: bool = True) -> None:
    """Register a model under ``(model.provider, model.id)``, e.g. a custom proxy model.

    Raises:
        TypeError: ``model`` is not a :class:`Model`.
        ConfigurationError: the key exists and ``replace`` is false.
    """
    if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"register_model() takes a Model, got {type(model).__name__}")
    _ensure_loaded()
    key = (model.provider, model.id)
    if key in _models and not replace:
        raise ConfigurationError(f"model {model.provider}/{model.id} is already registered")
    _models[key] = model


def get_model(provider: str, model_id: str) -> Model:
    """Return the model registered as ``(provider, model_id)``.

    Raises:
        ModelNotFoundError: unknown; the message suggests close matches.
    """
    _ensure_loaded()
    try:
        return _models[(provider, model_id)]
    except KeyError:
        ids = [m for p, m in _models if p == provider]
        import difflib

        hint = difflib.get_close_matches(model_id, ids, n=3)
        extra = f"; did you mean {', '.join(hint)}?" if hint else ""
        if not ids:
            extra = f"; no models registered for provider {provider!r}"
        raise ModelNotFoundError(f"unknown model {provider}/{model_id}{extra}") from None


def get_models(provider: str | None = None) -> list[Model]:
    """Return the registered models, of one provider or all, sorted by (provider, id)."""
    _ensure_loaded()
    return [m for k, m in sorted(_models.items()) if provider is None or k[0] == provider]


def get_providers() -> list[str]:
    """Return the provider names that have models, sorted."""
    _ensure_loaded()
    return sorted({p for p, _ in _models})


def get_api_key(provider: str) -> str | None:
    """Return the API key for ``provider`` from the ``get_api_key`` plugin hook (first answer)."""
    from pi_sdk.plugins._manager import get_plugin_manager

    key: Any = get_plugin_manager().hook.get_api_key(provider=provider)
    return key if isinstance(key, str) and key else None


def calculate_cost(model: Model, usage: Usage) -> None:
    """Set ``usage.cost`` from ``model.cost`` (USD per million tokens); mutates ``usage``."""
    prices = model.cost
    cost = usage.cost
    cost.input = prices.input * usage.input / 1e6
    cost.output = prices.output * usage.output / 1e6
    cost.cache_read = prices.cache_read * usage.cache_read / 1e6
    cost.cache_write = prices.cache_write * usage.cache_write / 1e6
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write


def load_models_json(package: str, resource: str = "models.json") -> list[Model]:
    """Read a provider package's generated catalog (``{"models": [...]}`` in pi-mono's shape)."""
    from importlib import resources  # lazy: keeps `import pi_sdk` cheap

    text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    data = json.loads(text)
    return [Model.model_validate(m) for m in data["models"]]
