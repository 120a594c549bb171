"""For hook-plugin authors: ``from pi_sdk.plugins import hookimpl, use_plugin_manager``.

:mod:`pi_sdk.plugins.hookspecs` is the hook reference. The manager (``PluginManager``,
``get_plugin_manager``, ``use_plugin_manager`` for tests), the helpers that call one
implementation at a time in plugin order, and ``describe_plugins`` (what ``pi-sdk plugins``
lists) are here, ``gate_observers`` (observers told only what a gate lets through: a replayed
Temporal workflow), ``EnvSetting`` (a plugin's value from ``configure()`` or an env var), and the
redaction a plugin that writes logs needs (``Redactor``, ``redact_text``,
``is_credential_name``). The agent hook types
(``BeforeToolCallContext``...) come from :mod:`pi_sdk`.
Imported on first use.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "call_hook_implementation": "pi_sdk._plugins.calling",
    "hook_implementations": "pi_sdk._plugins.calling",
    "PluginInfo": "pi_sdk._plugins.listing",
    "describe_plugins": "pi_sdk._plugins.listing",
    "ObserverGate": "pi_sdk._plugins.observers",
    "gate_observers": "pi_sdk._plugins.observers",
    "ENTRY_POINT_GROUP": "pi_sdk._plugins.manager",
    "LOAD_PLUGINS_ENV": "pi_sdk._plugins.manager",
    "PluginManager": "pi_sdk._plugins.manager",
    "get_plugin_manager": "pi_sdk._plugins.manager",
    "load_plugins": "pi_sdk._plugins.manager",
    "plugin_load_errors": "pi_sdk._plugins.manager",
    "restore_plugin_manager": "pi_sdk._plugins.manager",
    "set_plugin_manager": "pi_sdk._plugins.manager",
    "use_plugin_manager": "pi_sdk._plugins.manager",
    "EnvSetting": "pi_sdk._plugins.setting",
    "lazy_exports": "pi_sdk._wire.exports",
    "DEFAULT_PATTERNS": "pi_sdk._wire.redact",
    "DEFAULT_SECRET_KEYS": "pi_sdk._wire.redact",
    "MIN_SECRET_LENGTH": "pi_sdk._wire.redact",
    "REDACTED": "pi_sdk._wire.redact",
    "Redactor": "pi_sdk._wire.redact",
    "is_credential_name": "pi_sdk._wire.redact",
    "redact_text": "pi_sdk._wire.redact",
    "RegisterApiProvider": "pi_sdk.plugins.hookspecs",
    "RegisterModel": "pi_sdk.plugins.hookspecs",
    "RegisterProvider": "pi_sdk.plugins.hookspecs",
    "hookimpl": "pi_sdk.plugins.hookspecs",
    "hookspec": "pi_sdk.plugins.hookspecs",
    "hookspecs": "pi_sdk.plugins.hookspecs",
}
"""Public name -> the module that defines it (a submodule names itself)."""

if _typing.TYPE_CHECKING:
    from pi_sdk._plugins.calling import call_hook_implementation as call_hook_implementation
    from pi_sdk._plugins.calling import hook_implementations as hook_implementations
    from pi_sdk._plugins.listing import PluginInfo as PluginInfo
    from pi_sdk._plugins.listing import describe_plugins as describe_plugins
    from pi_sdk._plugins.manager import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from pi_sdk._plugins.manager import LOAD_PLUGINS_ENV as LOAD_PLUGINS_ENV
    from pi_sdk._plugins.manager import PluginManager as PluginManager
    from pi_sdk._plugins.manager import get_plugin_manager as get_plugin_manager
    from pi_sdk._plugins.manager import load_plugins as load_plugins
    from pi_sdk._plugins.manager import plugin_load_errors as plugin_load_errors
    from pi_sdk._plugins.manager import restore_plugin_manager as restore_plugin_manager
    from pi_sdk._plugins.manager import set_plugin_manager as set_plugin_manager
    from pi_sdk._plugins.manager import use_plugin_manager as use_plugin_manager
    from pi_sdk._plugins.observers import ObserverGate as ObserverGate
    from pi_sdk._plugins.observers import gate_observers as gate_observers
    from pi_sdk._plugins.setting import EnvSetting as EnvSetting
    from pi_sdk._wire.exports import lazy_exports as lazy_exports
    from pi_sdk._wire.redact import DEFAULT_PATTERNS as DEFAULT_PATTERNS
    from pi_sdk._wire.redact import DEFAULT_SECRET_KEYS as DEFAULT_SECRET_KEYS
    from pi_sdk._wire.redact import MIN_SECRET_LENGTH as MIN_SECRET_LENGTH
    from pi_sdk._wire.redact import REDACTED as REDACTED
    from pi_sdk._wire.redact import Redactor as Redactor
    from pi_sdk._wire.redact import is_credential_name as is_credential_name
    from pi_sdk._wire.redact import redact_text as redact_text
    from pi_sdk.plugins import hookspecs as hookspecs
    from pi_sdk.plugins.hookspecs import RegisterApiProvider as RegisterApiProvider
    from pi_sdk.plugins.hookspecs import RegisterModel as RegisterModel
    from pi_sdk.plugins.hookspecs import RegisterProvider as RegisterProvider
    from pi_sdk.plugins.hookspecs import hookimpl as hookimpl
    from pi_sdk.plugins.hookspecs import hookspec as hookspec

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
