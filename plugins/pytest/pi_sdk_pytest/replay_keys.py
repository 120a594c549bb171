"""A dummy API key for every provider while a cassette is replayed (used by the pytest plugin).

On replay no real key is needed: requests never leave the machine and keys are scrubbed from
cassettes. A ``get_api_key`` hook wrapper registered in the active plugin manager for the test
answers for any provider no other plugin answers for (plugin providers included).
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from pi_sdk.plugins import get_plugin_manager, hookimpl

__all__ = ["replay_keys"]


class _ReplayKeys:
    """pi-sdk plugin active while a cassette is replayed: a key for every provider."""

    def __init__(self, key: str) -> None:
        self.key = key

    @hookimpl(wrapper=True)
    def get_api_key(self, provider: str) -> Generator[None, str | None, str | None]:
        """Return the other plugins' answer, else the dummy key (whatever the provider)."""
        answer = yield
        return answer or self.key


@contextmanager
def replay_keys(key: str) -> Generator[None]:
    """Register the dummy-key plugin in the active plugin manager for the block.

    Args:
        key: The key every provider gets when no plugin knows one.
    """
    manager = get_plugin_manager()
    plugin = _ReplayKeys(key)
    manager.register(plugin, name=f"pi-sdk-replay-keys-{id(plugin)}")
    try:
        yield
    finally:
        manager.unregister(plugin)
