"""Asking the active manager's hooks: implementations in plugin order, and cached answers.

:func:`hook_implementations` and :func:`call_hook_implementation` serve the hooks pi-sdk awaits
one implementation at a time (``on_payload``, ``before_tool_call``, ``after_tool_call``): the
callers own the rule that combines the answers. :class:`PerManager` keeps what a registry
collected from the ``register_*`` hooks, one state per manager, rebuilt when the manager's
:attr:`~pi_sdk.plugins.PluginManager.generation` changes (llm's registry-as-a-question model).
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import pluggy

    from pi_sdk._plugins.manager import PluginManager

__all__ = ["PerManager", "call_hook_implementation", "hook_implementations"]

S = TypeVar("S")


def hook_implementations(
    hook_name: str, manager: PluginManager | None = None
) -> list[pluggy.HookImpl]:
    """Return the implementations of ``hook_name`` in plugin order.

    They are the active manager's, or ``manager``'s when given.

    Raises:
        AttributeError: no hook of that name exists.
    """
    pm = manager if manager is not None else _active_manager()
    caller: pluggy.HookCaller = getattr(pm.hook, hook_name)
    return list(reversed(caller.get_hookimpls()))


async def call_hook_implementation(impl: pluggy.HookImpl, /, **kwargs: Any) -> Any:
    """Call one implementation with the arguments it declares; await an awaitable result.

    Passes only the parameters the implementation names (pluggy's opt-in arguments), so a spec
    can grow without breaking older plugins.

    Raises:
        Exception: Whatever the implementation raises, with a note naming the plugin and hook.
    """
    args = [kwargs[name] for name in impl.argnames]
    extra = {name: kwargs[name] for name in impl.kwargnames if name in kwargs}
    try:
        result = impl.function(*args, **extra)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:
        exc.add_note(f"in hook {impl.function.__name__!r} of plugin {impl.plugin_name!r}")
        raise
    return result


@dataclass(slots=True)
class _Slot(Generic[S]):
    state: S
    generation: int = -1
    """The manager generation the plugins' part of ``state`` was collected at (-1: never)."""


class PerManager(Generic[S]):
    """One state object per plugin manager, refreshed from its hooks when it changes.

    ``new()`` makes the state of a manager seen for the first time (hand registrations live
    there, so they follow their manager and survive its changes); ``rebuild(pm, state)``
    re-collects the plugins' part of it. :meth:`current` calls ``rebuild`` when the active
    manager's ``generation`` differs from the one the state was built at, so the cost is one
    comparison per access while nothing changes. If ``rebuild`` raises (e.g. two plugins claim
    one API id) the error reaches the caller and the next access tries again. States go away
    with their manager (weak keys).
    """

    def __init__(self, new: Callable[[], S], rebuild: Callable[[PluginManager, S], None]) -> None:
        self._new = new
        self._rebuild = rebuild
        self._slots: weakref.WeakKeyDictionary[PluginManager, _Slot[S]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.RLock()

    def current(self) -> S:
        """Return the active manager's state, rebuilt first if the manager changed."""
        pm = _active_manager()
        slot = self._slots.get(pm)
        if slot is not None and slot.generation == pm.generation:
            return slot.state
        with self._lock:
            slot = self._slots.get(pm)
            if slot is None:
                slot = self._slots[pm] = _Slot(self._new())
            if slot.generation != pm.generation:
                generation = pm.generation
                self._rebuild(pm, slot.state)
                slot.generation = generation
            return slot.state

    def invalidate(self) -> None:
        """Rebuild the active manager's state on next access (e.g. a hand registration left)."""
        slot = self._slots.get(_active_manager())
        if slot is not None:
            slot.generation = -1


_get_plugin_manager: list[Callable[[], PluginManager]] = []
"""``get_plugin_manager`` once the first registry read imported it."""


def _active_manager() -> PluginManager:
    # The manager (pluggy, the hookspecs, the provider contract they name) is imported by the
    # first registry read, not with the registries (first use, issue 32 item 2); later reads
    # skip the import statement (a ``from`` import of a loaded module still costs ~1 µs).
    if not _get_plugin_manager:
        from pi_sdk._plugins.manager import get_plugin_manager

        _get_plugin_manager.append(get_plugin_manager)
    return _get_plugin_manager[0]()
