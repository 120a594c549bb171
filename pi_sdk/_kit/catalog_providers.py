"""A provider package's providers, built from its catalog and its environment-variable table.

A first-party package (``pi-sdk-anthropic``...) serves many catalog providers through its wire
APIs: ``anthropic``, and the servers that speak its API (``fireworks``, ``vercel-ai-gateway``,
``minimax``...). :func:`package_providers` makes one :class:`~pi_sdk.Provider` per provider id of
its environment table, each holding its slice of the package's ``models.json`` (read on first
use, once per package) and the package's wire APIs; :func:`provider_factory` makes the package's
``provider(...)``, which picks one and configures it for a collection of the application's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.provider import Provider, ProviderAuth
from pi_sdk._wire.cost import load_models_json
from pi_sdk.errors import ProviderNotFoundError
from pi_sdk.types import Model

__all__ = ["ProviderFactory", "package_providers", "provider_factory"]


@functools.cache
def _catalog(package: str) -> tuple[Model, ...]:
    """``package``'s ``models.json``, read once."""
    return tuple(load_models_json(package))


def _slice(package: str, provider: str) -> Callable[[], list[Model]]:
    def read() -> list[Model]:
        return [model for model in _catalog(package) if model.provider == provider]

    return read


def package_providers(
    package: str,
    *,
    apis: Sequence[ApiProvider],
    env: Mapping[str, Sequence[str]],
    names: Mapping[str, str] | None = None,
) -> tuple[Provider, ...]:
    """One provider per key of ``env``: its variables, its catalog slice, the package's APIs.

    Args:
        package: The import name whose ``models.json`` holds the catalog (``"pi_sdk_anthropic"``).
        apis: The package's wire-API implementations (each provider's models pick by ``api``).
        env: Provider id -> the environment variables holding its key, in order (pi-ai
            ``getEnvApiKey``); every provider of the catalog must be a key.
        names: Display names by provider id.

    Returns:
        The providers, in the order of ``env`` (what the package's entry point names).
    """
    return tuple(
        Provider(
            id=provider,
            name=(names or {}).get(provider, ""),
            auth=ProviderAuth(env=tuple(variables)),
            models=_slice(package, provider),
            apis=tuple(apis),
        )
        for provider, variables in env.items()
    )


class ProviderFactory(Protocol):
    """A package's ``provider(...)``: one of its providers, configured."""

    def __call__(
        self,
        provider_id: str = ...,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Provider:
        """The provider ``provider_id``, with a key, base URL or headers of its own.

        Raises:
            ProviderNotFoundError: ``provider_id`` is not one of the package's providers.
        """
        ...


def provider_factory(providers: Sequence[Provider], default: str) -> ProviderFactory:
    """A package's ``provider(provider_id=default, *, api_key, base_url, headers)`` function.

    It returns the provider ``provider_id`` of ``providers`` configured with what is given
    (:meth:`Provider.configure`; ``None`` keeps the catalog's), for a :class:`pi_sdk.Models`
    collection of the application's own: ``pi_sdk_anthropic.provider(api_key=key)``.
    """

    def provider(
        provider_id: str = default,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Provider:
        for candidate in providers:
            if candidate.id == provider_id:
                return candidate.configure(api_key=api_key, base_url=base_url, headers=headers)
        known = ", ".join(p.id for p in providers)
        raise ProviderNotFoundError(f"no provider {provider_id!r} here (providers: {known})")

    ids = ", ".join(f"``{p.id}``" for p in providers)
    provider.__doc__ = (
        f"One of this package's providers ({ids}; default ``{default}``), configured with a key,"
        " base URL or headers of its own (``None`` keeps the catalog's), for a"
        " :class:`pi_sdk.Models` collection.\n\nRaises:\n    ProviderNotFoundError: not one of"
        " them."
    )
    return provider
