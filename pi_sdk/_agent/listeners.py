"""Agent listeners: how one is called, and how its failures are logged without flooding.

A listener is ``listener(event, signal)`` or ``listener(event)``, sync or async. One that raises
is logged (logger ``pi_sdk._agent.agent``) and the run continues: its first failure in a run with
the traceback, later ones one line each at DEBUG, counted in one WARNING line after
``agent_end``.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import logging

__all__ = [
    "AgentListener",
    "ListenerFailures",
    "agent_logger",
    "log_listener_failure",
    "log_repeated_listener_failures",
    "takes_signal",
]


def agent_logger() -> logging.Logger:
    """The ``pi_sdk._agent.agent`` logger; :mod:`logging` is imported by the first failure."""
    import logging

    return logging.getLogger("pi_sdk._agent.agent")


AgentListener: TypeAlias = Callable[..., "Awaitable[None] | None"]
"""``listener(event, signal)`` (or ``listener(event)``), sync or async; return value ignored.

``signal`` is the current run's :class:`pi_sdk.AbortSignal`.
"""


@dataclass(eq=False)
class ListenerFailures:
    """A listener's failures after the first one (whose traceback was logged) in one run."""

    listener: AgentListener
    later: Counter[str] = field(default_factory=Counter[str])
    """Event type -> failures."""
    last_error: str = ""


def takes_signal(listener: AgentListener) -> bool:
    try:
        parameters = inspect.signature(listener).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def log_listener_failure(
    by_listener: dict[int, ListenerFailures],
    listener: AgentListener,
    event_type: str,
    exc: Exception,
) -> None:
    # Keyed by id(): the record holds the listener, so the id is not reused during the run.
    failures = by_listener.get(id(listener))
    if failures is None:
        by_listener[id(listener)] = ListenerFailures(listener)
        agent_logger().error(
            "agent listener %r raised on %s; the run continues (later failures of this"
            " listener in this run are counted, not traced)",
            listener,
            event_type,
            exc_info=exc,
        )
        return
    failures.later[event_type] += 1
    failures.last_error = f"{type(exc).__name__}: {exc}"
    agent_logger().debug("agent listener %r raised again on %s: %s", listener, event_type, exc)


def log_repeated_listener_failures(by_listener: dict[int, ListenerFailures]) -> None:
    for failures in by_listener.values():
        if failures.later:
            count = failures.later.total()
            per_event = ", ".join(f"{t} x{n}" for t, n in failures.later.items())
            agent_logger().warning(
                "agent listener %r raised %d more %s in this run (%s); last error: %s",
                failures.listener,
                count,
                "time" if count == 1 else "times",
                per_event,
                failures.last_error,
            )
    by_listener.clear()
