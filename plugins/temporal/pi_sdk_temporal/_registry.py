"""The worker's registry: the tools and models a workflow may name.

A workflow holds names only; each worker resolves them here, so every worker of a task queue
must register the same names with the same behaviour (a deployment rule, like the code of the
workflow itself).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeAlias, TypeVar

from pi_sdk.agent import AgentTool
from pi_sdk.types import Context, Model

__all__ = ["AgentRegistry", "EventSink", "RegistryError"]

EventSink: TypeAlias = Callable[[str, dict[str, Any]], "Awaitable[None] | None"]
"""``sink(workflow_id, event)``: live events of the activities (see :class:`AgentRegistry`)."""

T = TypeVar("T")

StreamFn: TypeAlias = Callable[[Model, Context, Any], Any]


class RegistryError(LookupError):
    """A workflow named a tool or model this worker does not have."""


class AgentRegistry:
    """Tools and models by name, and how the worker calls them.

    Args:
        tools: Tools, registered under their ``name``.
        models: Models by the name workflows use (e.g. ``"claude"``, ``"gpt-5"``).
        stream_fn: Replaces :func:`pi_sdk.stream` for model calls (tests, proxies).
        get_api_key: ``get_api_key(provider) -> key | None``, sync or async, asked before every
            model call; ``None``: pi-sdk's lookup (plugins, environment). Keys never enter
            the workflow history.
        event_sink: Receives the live events only the activities see, as pi JSON dicts with the
            workflow id: every assistant-message stream event of a model call (``{"type":
            "text_delta", ...}``) and every ``tool_execution_update``. Best effort: a retried
            activity streams again, so a sink sees the events of every attempt.

    Raises:
        ValueError: two tools share a name.
    """

    def __init__(
        self,
        *,
        tools: Iterable[AgentTool] = (),
        models: Mapping[str, Model] | None = None,
        stream_fn: StreamFn | None = None,
        get_api_key: Callable[[str], Any] | None = None,
        event_sink: EventSink | None = None,
    ) -> None:
        self._tools: dict[str, AgentTool] = {}
        for tool in tools:
            self.add_tool(tool)
        self._models: dict[str, Model] = dict(models or {})
        self.stream_fn = stream_fn
        self.get_api_key = get_api_key
        self.event_sink = event_sink

    def add_tool(self, tool: AgentTool) -> None:
        """Register ``tool`` under its name.

        Raises:
            ValueError: a tool of that name is registered already.
        """
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is registered already")
        self._tools[tool.name] = tool

    def add_model(self, name: str, model: Model) -> None:
        """Register ``model`` under ``name`` (replacing any model of that name)."""
        self._models[name] = model

    def tool(self, name: str) -> AgentTool:
        """The tool called ``name``.

        Raises:
            RegistryError: no such tool on this worker (the message lists the known ones).
        """
        return _lookup(self._tools, "tool", name)

    def model(self, name: str) -> Model:
        """The model registered as ``name``.

        Raises:
            RegistryError: no such model on this worker (the message lists the known ones).
        """
        return _lookup(self._models, "model", name)


def _lookup(entries: Mapping[str, T], kind: str, name: str) -> T:
    found = entries.get(name)
    if found is None:
        known = ", ".join(sorted(entries)) or "none"
        raise RegistryError(f"no {kind} {name!r} on this worker (known: {known})")
    return found
