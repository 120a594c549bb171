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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_sdk.types import AssistantMessage

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


class PiSdkError(Exception):
    """Root of every pi-sdk exception."""


class ConfigurationError(PiSdkError):
    """A mistake detected before any I/O (unknown API, unknown model, bad option)."""


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


class AssistantError(PiSdkError):
    """An assistant message ended with ``stop_reason`` ``"error"``; ``.message`` keeps all data."""

    def __init__(self, message: AssistantMessage) -> None:
        super().__init__(message.error_message or f"assistant message ended: {message.stop_reason}")
        self.assistant_message = message


class AbortedError(AssistantError):
    """The call was aborted (``stop_reason == "aborted"``)."""
