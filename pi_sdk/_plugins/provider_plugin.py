"""An entry point that names a ``Provider`` (or several): registered as a plugin for it.

A provider package publishes its providers as data: ``[project.entry-points.pi_sdk]``
``acme = "pi_sdk_acme:PROVIDERS"`` names a :class:`~pi_sdk.Provider` or a sequence of them. The
manager wraps such an object in a :class:`ProviderPlugin` whose one hook,
``register_providers``, registers them, so the default collection collects them like any
plugin's answer (and they leave with the plugin). Any other object (a module with
``@hookimpl`` functions) is registered as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from pi_sdk._stream.provider import Provider
from pi_sdk.plugins.hookspecs import RegisterProvider, hookimpl

__all__ = ["ProviderPlugin", "as_plugin"]


class ProviderPlugin:
    """A plugin registering fixed providers (what an entry point naming providers becomes)."""

    def __init__(self, providers: Sequence[Provider], name: str) -> None:
        self.providers = tuple(providers)
        self.name = name

    def __repr__(self) -> str:
        ids = ", ".join(p.id for p in self.providers)
        return f"<providers of {self.name!r}: {ids}>"

    @hookimpl
    def register_providers(self, register: RegisterProvider) -> None:
        """Register this entry point's providers."""
        for provider in self.providers:
            register(provider)


def as_plugin(loaded: object, name: str) -> object:
    """What to register for the object entry point ``name`` loaded.

    Raises:
        TypeError: a sequence that holds something other than providers.
    """
    if isinstance(loaded, Provider):
        return ProviderPlugin([loaded], name)
    if isinstance(loaded, list | tuple) and loaded:
        items = cast("Sequence[object]", loaded)
        providers = [item for item in items if isinstance(item, Provider)]
        if len(providers) == len(items):
            return ProviderPlugin(providers, name)
        raise TypeError(
            f"entry point {name!r} names a sequence; it may hold only pi_sdk.Provider objects"
        )
    return cast(object, loaded)  # a module (or object) with hook implementations
