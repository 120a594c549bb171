"""pi-sdk-otel: OpenTelemetry spans of agent runs and tool executions, metrics of model calls.

Installed, this plugin implements the observer hooks ``on_agent_event`` and ``on_model_call``
for every Agent and every :func:`pi_sdk.stream` call in the process, and sends the spans and
metrics to the *active tracing*:

* the :class:`Tracing` passed to :func:`configure` (``configure(None)``: no spans, no
  metrics), else
* a :class:`Tracing` on OpenTelemetry's global tracer provider (no-op until the application
  installs one, e.g. ``opentelemetry-sdk``), recording prompts and completions only when
  ``PI_SDK_OTEL_CAPTURE_CONTENT`` is ``1``/``true``/``yes``/``on``.

Span names, metrics and attributes follow the OpenTelemetry GenAI semantic conventions: see
:mod:`pi_sdk_otel.tracing` for the tree, :mod:`pi_sdk_otel.metrics` for the metrics and
:mod:`pi_sdk_otel.attributes` for the names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_sdk import AssistantMessage, Context, Model, StreamOptions, hookimpl
from pi_sdk.plugins import EnvSetting

from .tracing import MAX_OPEN_RUNS, Tracing

if TYPE_CHECKING:
    from pi_sdk import AgentEvent

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "MAX_OPEN_RUNS",
    "Tracing",
    "active_tracing",
    "configure",
    "on_agent_event",
    "on_model_call",
    "reset",
]

CAPTURE_CONTENT_ENV = "PI_SDK_OTEL_CAPTURE_CONTENT"
"""Environment variable: ``1``, ``true``, ``yes`` or ``on`` (any case) turns content capture on
for the default :class:`Tracing`; anything else, or unset, leaves it off."""

_TRUE = frozenset({"1", "true", "yes", "on"})


def _flag(value: str) -> bool:
    return value.strip().lower() in _TRUE


_capture: EnvSetting[bool] = EnvSetting(CAPTURE_CONTENT_ENV, _flag)


def _capture_from_env() -> bool:
    return bool(_capture.get())


_default: list[Tracing] = [Tracing(capture_content=_capture_from_env)]
"""The default Tracing (made again by :func:`reset`, so it asks for the global provider anew)."""
_configured: list[Tracing | None] = []
"""Empty: use the default; else the one value :func:`configure` set."""


def configure(tracing: Tracing | None) -> None:
    """Send spans and metrics to ``tracing`` (``None``: none at all) instead of the default."""
    _configured[:] = [tracing]


def reset() -> None:
    """Forget :func:`configure`; re-read ``PI_SDK_OTEL_CAPTURE_CONTENT`` on the next span.

    Runs still open are no longer followed: their run, turn and tool spans are never ended.
    """
    _configured.clear()
    _capture.reset()
    _default[:] = [Tracing(capture_content=_capture_from_env)]


def active_tracing() -> Tracing | None:
    """Return the :class:`Tracing` spans go to now (``None`` after ``configure(None)``)."""
    return _configured[0] if _configured else _default[0]


@hookimpl
def on_model_call(
    model: Model, context: Context, options: StreamOptions, run_id: str | None
) -> Callable[[AssistantMessage], None] | None:
    """Start a ``chat`` span for one model call (the plugin's hook)."""
    tracing = active_tracing()
    if tracing is None:
        return None
    return tracing.on_model_call(model, context, options, run_id)


@hookimpl
def on_agent_event(event: AgentEvent, run_id: str, model: Model) -> None:
    """Open or close the run, turn and tool spans of one agent event (the plugin's hook)."""
    tracing = active_tracing()
    if tracing is not None:
        tracing.on_agent_event(event, run_id, model)
