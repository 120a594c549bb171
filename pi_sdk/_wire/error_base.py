"""The root of pi-sdk's exceptions, below every module that defines one.

:class:`PiSdkError` is public as ``pi_sdk.errors.PiSdkError``. It lives here, importing nothing,
so that :mod:`pi_sdk.types` (which defines the errors that carry an assistant message) and
:mod:`pi_sdk.errors` (which names every exception) both build on it without importing each other.
:class:`ConfigurationError` (public as ``pi_sdk.errors.ConfigurationError``) lives here too, so
the wire types :mod:`pi_sdk.types` builds on can raise it (a tool's constrained sampling).
"""

from __future__ import annotations

__all__ = ["ConfigurationError", "PiSdkError"]


class PiSdkError(Exception):
    """Root of every pi-sdk exception."""


class ConfigurationError(PiSdkError):
    """A mistake detected before any I/O (unknown API, unknown model, bad option)."""


ConfigurationError.__module__ = "pi_sdk.errors"  # its public home
