"""The plugin manager: lazy, idempotent loading of the ``pi_sdk`` entry-point group.

``PI_SDK_LOAD_PLUGINS="a,b"`` restricts loading to the named entry points (an empty string loads
none). A plugin that fails to import is reported by name (a warning and
:func:`plugin_load_errors`) while the others still load.
"""

from __future__ import annotations

import importlib.metadata
import os
import warnings

import pluggy

from . import hookspecs
from .errors import PluginLoadError

__all__ = ["get_plugin_manager", "load_plugins", "plugin_load_errors", "set_plugin_manager"]

ENTRY_POINT_GROUP = "pi_sdk"

_pm: pluggy.PluginManager | None = None
_loaded = False
_errors: list[PluginLoadError] = []


def _new_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("pi_sdk")
    pm.add_hookspecs(hookspecs)
    return pm


def get_plugin_manager() -> pluggy.PluginManager:
    """Return the process-wide plugin manager, loading entry-point plugins on first use."""
    global _pm
    if _pm is None:
        _pm = _new_manager()
    load_plugins()
    return _pm


def set_plugin_manager(pm: pluggy.PluginManager | None, *, load_entry_points: bool = False) -> None:
    """Replace the plugin manager (tests): ``None`` starts a fresh one on next use.

    Args:
        pm: The manager to use, e.g. ``pluggy.PluginManager("pi_sdk")`` with plugins registered
            by hand through ``pm.register(obj, name=...)``.
        load_entry_points: Whether installed entry-point plugins should load into it too.
    """
    global _pm, _loaded
    from . import registry

    if pm is not None:
        pm.add_hookspecs(hookspecs)
    _pm = pm
    _loaded = not load_entry_points and pm is not None
    _errors.clear()
    registry.reset()


def load_plugins() -> None:
    """Load every entry point of the ``pi_sdk`` group once (idempotent)."""
    global _loaded, _pm
    if _loaded:
        return
    _loaded = True
    if _pm is None:
        _pm = _new_manager()
    allowed = os.environ.get("PI_SDK_LOAD_PLUGINS")
    names = None if allowed is None else {n.strip() for n in allowed.split(",") if n.strip()}
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if names is not None and entry_point.name not in names:
            continue
        if _pm.get_plugin(entry_point.name) is not None:
            continue
        try:
            module = entry_point.load()
            _pm.register(module, name=entry_point.name)
        except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop the rest
            error = PluginLoadError(entry_point.name, exc)
            _errors.append(error)
            warnings.warn(str(error), RuntimeWarning, stacklevel=2)


def plugin_load_errors() -> list[PluginLoadError]:
    """Return the plugins that failed to load, each naming its plugin and cause."""
    return list(_errors)
