"""A hook plugin's one process-wide value: set by its ``configure()``, else named by an env var."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["EnvSetting"]

T = TypeVar("T")


class EnvSetting(Generic[T]):
    """A hook plugin's value: the one given to :meth:`configure`, else loaded from an env var.

    The value loaded is built from the file the environment variable names, on first use
    (``None``: no value, the plugin is off): the shape of pi-sdk's first-party plugins
    (``PI_SDK_AUDIT_LOG``, ``PI_SDK_TOOL_POLICY``). The env var is read once, on the first
    :meth:`get` after :meth:`reset`, so a plugin that is installed but never used opens nothing.
    All methods are thread-safe (one lock).

    Args:
        env: The environment variable naming the file; unset or empty: no value.
        load: Builds the value from the file path. An exception it raises propagates from
            :meth:`get`, and the next :meth:`get` tries again.
        close: Called on a value :meth:`get` loaded when :meth:`reset` forgets it; never on a
            value given to :meth:`configure` (its owner closes it).
    """

    def __init__(
        self, env: str, load: Callable[[str], T], close: Callable[[T], None] | None = None
    ) -> None:
        self.env = env
        self._load = load
        self._close = close
        self._lock = threading.Lock()
        self._set = False
        self._value: T | None = None
        self._loaded = False

    def configure(self, value: T | None) -> None:
        """Use ``value`` (``None``: none) instead of the env var until :meth:`reset`."""
        with self._lock:
            self._set, self._value, self._loaded = True, value, False

    def reset(self) -> None:
        """Forget the value (closing one loaded from the env var); the next get reads it again."""
        with self._lock:
            if self._loaded and self._value is not None and self._close is not None:
                self._close(self._value)
            self._set, self._value, self._loaded = False, None, False

    def get(self) -> T | None:
        """Return the value now: the configured one, else the env var's file loaded once.

        Raises:
            Exception: whatever ``load`` raises (nothing is kept then).
        """
        with self._lock:
            if not self._set:
                path = os.environ.get(self.env)
                self._value = self._load(path) if path else None
                self._set, self._loaded = True, bool(path)
            return self._value
