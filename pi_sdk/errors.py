"""Every exception pi-sdk raises.

Failures after a call has started are data (an ``error`` event, ``stop_reason`` ``"error"`` or
``"aborted"``), never exceptions. These classes cover mistakes before a call starts and the
explicit ``raise_for_error()`` opt-in::

    PiSdkError
    ├── ConfigurationError          raised before any I/O: a developer mistake
    │   ├── ProviderNotFoundError   also LookupError: no API provider for ``model.api``
    │   ├── ModelNotFoundError      also LookupError: ``get_model(provider, id)`` missed
    │   └── PluginLoadError         a plugin failed to load (names the plugin)
    ├── AgentBusyError              also RuntimeError: prompt()/continue_() while a run is active
    ├── SessionFileError            also ValueError: a session file that cannot be loaded
    ├── ToolArgumentsError          also ValueError: tool-call arguments that fail the schema
    └── AssistantError              raised only by ``AssistantMessage.raise_for_error()``
        └── AbortedError            ``stop_reason == "aborted"``

``AssistantError`` and ``AbortedError`` carry the message they failed on, so they are defined
beside it, in :mod:`pi_sdk.types`; this module names them too, importing them on first use (so
importing the errors costs no pydantic).
"""

from __future__ import annotations

import typing as _typing

from pi_sdk._wire.error_base import ConfigurationError as ConfigurationError
from pi_sdk._wire.error_base import PiSdkError
from pi_sdk._wire.exports import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from pi_sdk.types import AbortedError as AbortedError
    from pi_sdk.types import AssistantError as AssistantError

__all__ = [
    "AbortedError",
    "AgentBusyError",
    "AssistantError",
    "ConfigurationError",
    "ModelNotFoundError",
    "PiSdkError",
    "PluginLoadError",
    "ProviderNotFoundError",
    "SessionFileError",
    "ToolArgumentsError",
]


class ProviderNotFoundError(ConfigurationError, LookupError):
    """No API provider is registered for the model's ``api``."""


class ModelNotFoundError(ConfigurationError, LookupError):
    """No model is registered under that (provider, id)."""


class PluginLoadError(ConfigurationError):
    """A plugin could not be loaded. ``plugin`` names it; the other plugins still load."""

    def __init__(self, plugin: str, cause: BaseException) -> None:
        super().__init__(f"plugin {plugin!r} failed to load: {type(cause).__name__}: {cause}")
        self.plugin = plugin
        self.cause = cause


class AgentBusyError(PiSdkError, RuntimeError):
    """The agent is already running; the message says what to do instead."""


class SessionFileError(PiSdkError, ValueError):
    """A session file is malformed or from a newer format version; nothing was loaded."""


class ToolArgumentsError(PiSdkError, ValueError):
    """Tool-call arguments failed validation; the text is pi-mono's (it is shown to the model)."""


__getattr__, __dir__ = _lazy_exports(
    __name__, {"AbortedError": "pi_sdk.types", "AssistantError": "pi_sdk.types"}
)
