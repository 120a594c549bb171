"""The root of pi-sdk's exceptions, below every module that defines one.

:class:`PiSdkError` is public as ``pi_sdk.errors.PiSdkError``. It lives here, importing nothing,
so that :mod:`pi_sdk.types` (which defines the errors that carry an assistant message) and
:mod:`pi_sdk.errors` (which names every exception) both build on it without importing each other.
"""

from __future__ import annotations

__all__ = ["PiSdkError"]


class PiSdkError(Exception):
    """Root of every pi-sdk exception."""
