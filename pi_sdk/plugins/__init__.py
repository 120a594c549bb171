"""For hook-plugin authors: ``from pi_sdk.plugins import hookimpl, use_plugin_manager``.

:mod:`pi_sdk.plugins.hookspecs` is the hook reference. The manager (``PluginManager``,
``get_plugin_manager``, ``use_plugin_manager`` for tests), the helpers that call one
implementation at a time in plugin order, and ``describe_plugins`` (what ``pi-sdk plugins``
lists) are here, ``EnvSetting`` (a plugin's value from ``configure()`` or an env var), and the
redaction a plugin that writes logs needs (``Redactor``, ``redact_text``). The agent hook types
(``BeforeToolCallContext``...) come from :mod:`pi_sdk`.
Imported on first use.
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._lazy import lazy_namespace as _lazy_namespace

if _typing.TYPE_CHECKING:
    from pi_sdk._redact import DEFAULT_PATTERNS as DEFAULT_PATTERNS
    from pi_sdk._redact import DEFAULT_SECRET_KEYS as DEFAULT_SECRET_KEYS
    from pi_sdk._redact import REDACTED as REDACTED
    from pi_sdk._redact import Redactor as Redactor
    from pi_sdk._redact import redact_text as redact_text
    from pi_sdk.plugins._calling import call_hook_implementation as call_hook_implementation
    from pi_sdk.plugins._calling import hook_implementations as hook_implementations
    from pi_sdk.plugins._listing import PluginInfo as PluginInfo
    from pi_sdk.plugins._listing import describe_plugins as describe_plugins
    from pi_sdk.plugins._manager import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from pi_sdk.plugins._manager import LOAD_PLUGINS_ENV as LOAD_PLUGINS_ENV
    from pi_sdk.plugins._manager import PluginManager as PluginManager
    from pi_sdk.plugins._manager import get_plugin_manager as get_plugin_manager
    from pi_sdk.plugins._manager import load_plugins as load_plugins
    from pi_sdk.plugins._manager import plugin_load_errors as plugin_load_errors
    from pi_sdk.plugins._manager import restore_plugin_manager as restore_plugin_manager
    from pi_sdk.plugins._manager import set_plugin_manager as set_plugin_manager
    from pi_sdk.plugins._manager import use_plugin_manager as use_plugin_manager
    from pi_sdk.plugins._setting import EnvSetting as EnvSetting
    from pi_sdk.plugins.hookspecs import RegisterApiProvider as RegisterApiProvider
    from pi_sdk.plugins.hookspecs import RegisterModel as RegisterModel
    from pi_sdk.plugins.hookspecs import hookimpl as hookimpl
    from pi_sdk.plugins.hookspecs import hookspec as hookspec

__getattr__, __dir__ = _lazy_namespace(__name__, submodules=("hookspecs",))
