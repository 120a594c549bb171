"""Stream functions for registry tests: registered, looked up and compared, never iterated."""

from __future__ import annotations

from typing import Any


async def idle_stream(model: Any, context: Any, options: Any) -> Any:  # pragma: no cover
    """A stream function that is never called."""
    yield None


async def other_idle_stream(model: Any, context: Any, options: Any) -> Any:  # pragma: no cover
    """A second one, for "the other provider" (``is`` tells the two apart)."""
    yield None
