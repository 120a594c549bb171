"""What ``pi-sdk plugins`` lists: every plugin of the active manager, loaded or failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_sdk._plugins.manager import get_plugin_manager

__all__ = ["PluginInfo", "describe_plugins"]


@dataclass(frozen=True, kw_only=True)
class PluginInfo:
    """One plugin as ``pi-sdk plugins`` lists it."""

    name: str
    """Registered name (the entry-point name for installed plugins)."""
    hooks: tuple[str, ...]
    """Hook names it implements, sorted."""
    module: str | None = None
    """Import name of the plugin module (or of the object's class)."""
    distribution: str | None = None
    """Distribution that published it, e.g. ``pi-sdk-anthropic``; ``None`` if registered by hand."""
    version: str | None = None
    """That distribution's version."""
    error: str | None = None
    """Why it failed to load; ``hooks`` is then empty."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape ``pi-sdk plugins --json`` prints (``hooks`` as a list)."""
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "hooks": list(self.hooks),
            "error": self.error,
        }


def describe_plugins() -> list[PluginInfo]:
    """List the active manager's plugins, loaded and failed, sorted by name.

    Returns:
        One :class:`PluginInfo` per plugin; failed plugins carry ``error`` and no hooks.
    """
    pm = get_plugin_manager()
    infos: list[PluginInfo] = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        callers = pm.get_hookcallers(plugin) or []
        dist, version = pm.distributions.get(name, (None, None))
        module = getattr(plugin, "__name__", None) or type(plugin).__module__
        infos.append(
            PluginInfo(
                name=name,
                hooks=tuple(sorted(c.name for c in callers)),
                module=module,
                distribution=dist or None,
                version=version or None,
            )
        )
    for error in pm.load_errors:
        cause = f"{type(error.cause).__name__}: {error.cause}"
        dist, version = pm.distributions.get(error.plugin, (None, None))
        infos.append(
            PluginInfo(
                name=error.plugin,
                hooks=(),
                distribution=dist or None,
                version=version or None,
                error=cause,
            )
        )
    return sorted(infos, key=lambda i: i.name)
