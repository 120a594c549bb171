"""For hook-plugin authors: ``from pi_sdk.plugins import hookimpl, use_plugin_manager``.

:mod:`pi_sdk.plugins.hookspecs` is the hook reference. The manager (``PluginManager``,
``get_plugin_manager``, ``use_plugin_manager`` for tests), the helpers that call one
implementation at a time in plugin order, and ``describe_plugins`` (what ``pi-sdk plugins``
lists) are here, and the redaction a plugin that writes logs needs (``Redactor``,
``redact_text``). The agent hook types (``BeforeToolCallContext``...) come from :mod:`pi_sdk`.
Imported on first use.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk._redact import (
        DEFAULT_PATTERNS,
        DEFAULT_SECRET_KEYS,
        REDACTED,
        Redactor,
        redact_text,
    )
    from pi_sdk.plugins._calling import call_hook_implementation, hook_implementations
    from pi_sdk.plugins._listing import PluginInfo, describe_plugins
    from pi_sdk.plugins._manager import (
        ENTRY_POINT_GROUP,
        LOAD_PLUGINS_ENV,
        PluginManager,
        get_plugin_manager,
        load_plugins,
        plugin_load_errors,
        restore_plugin_manager,
        set_plugin_manager,
        use_plugin_manager,
    )
    from pi_sdk.plugins.hookspecs import RegisterApiProvider, RegisterModel, hookimpl, hookspec

_MODULES = {
    "pi_sdk._redact": (
        "DEFAULT_PATTERNS",
        "DEFAULT_SECRET_KEYS",
        "REDACTED",
        "Redactor",
        "redact_text",
    ),
    "pi_sdk.plugins._calling": ("call_hook_implementation", "hook_implementations"),
    "pi_sdk.plugins._listing": ("PluginInfo", "describe_plugins"),
    "pi_sdk.plugins._manager": (
        "ENTRY_POINT_GROUP",
        "LOAD_PLUGINS_ENV",
        "PluginManager",
        "get_plugin_manager",
        "load_plugins",
        "plugin_load_errors",
        "restore_plugin_manager",
        "set_plugin_manager",
        "use_plugin_manager",
    ),
    "pi_sdk.plugins.hookspecs": ("RegisterApiProvider", "RegisterModel", "hookimpl", "hookspec"),
}
"""Where each public name is defined; imported on first use (``pi_sdk._lazy``)."""

__getattr__, __dir__ = _lazy_namespace(__name__, _MODULES, submodules=("hookspecs",))

__all__ = [
    "DEFAULT_PATTERNS",
    "DEFAULT_SECRET_KEYS",
    "ENTRY_POINT_GROUP",
    "LOAD_PLUGINS_ENV",
    "PluginInfo",
    "PluginManager",
    "REDACTED",
    "Redactor",
    "RegisterApiProvider",
    "RegisterModel",
    "call_hook_implementation",
    "describe_plugins",
    "get_plugin_manager",
    "hook_implementations",
    "hookimpl",
    "hookspec",
    "load_plugins",
    "plugin_load_errors",
    "redact_text",
    "restore_plugin_manager",
    "set_plugin_manager",
    "use_plugin_manager",
]
