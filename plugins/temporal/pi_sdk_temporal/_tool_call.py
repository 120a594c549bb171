"""The durable tool call a tool is executing: its run, its id, its attempt, its idempotency key.

A tool's ``execute`` runs in an activity, and an activity whose worker died before Temporal
recorded its result runs again, from its start, on another worker (``docs/temporal.md``, "What
a killed worker costs"). The key tells the two executions of one call apart from every other
call: ``<workflow run id>/<tool call id>``, the same on every attempt of that call, different
for every other call (another run's, another turn's). A tool that stores its effect and the key
in one transaction (``INSERT ... ON CONFLICT DO NOTHING``, an object named by the key, a
vendor's ``Idempotency-Key`` header) makes that effect happen once.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["DurableToolCall", "durable_tool_call", "executing", "idempotency_key"]


@dataclass(frozen=True, kw_only=True)
class DurableToolCall:
    """The tool call being executed by the tool activity on this worker."""

    workflow_id: str
    """The agent workflow's id (``start_agent(id=...)``)."""
    run_id: str
    """Temporal's run id of the workflow execution: unique to this run (a continued-as-new or
    restarted workflow gets a new one)."""
    tool_call_id: str
    """The id the model gave the call (unique within the transcript)."""
    tool_name: str
    attempt: int
    """1 for the first execution; more when a worker died (or hung) during an earlier one."""

    @property
    def idempotency_key(self) -> str:
        """``<run_id>/<tool_call_id>``: the same on every attempt of this call, only on it."""
        return f"{self.run_id}/{self.tool_call_id}"


_CURRENT: ContextVar[DurableToolCall | None] = ContextVar("pi_sdk_temporal_tool_call", default=None)


def durable_tool_call() -> DurableToolCall | None:
    """The durable call this tool is executing; ``None`` outside the tool activity.

    A tool shared by plain and durable agents can branch on it: ``None`` on a plain Agent.
    """
    return _CURRENT.get()


def idempotency_key() -> str:
    """The running tool call's idempotency key (:attr:`DurableToolCall.idempotency_key`).

    Raises:
        LookupError: not called from a tool executed by the tool activity (a plain Agent's
            tool, or code outside a tool).
    """
    call = _CURRENT.get()
    if call is None:
        raise LookupError(
            "idempotency_key() is only known inside a tool executed by a durable run"
            " (pi-sdk-temporal's tool activity); use durable_tool_call() to test for it"
        )
    return call.idempotency_key


@contextmanager
def executing(call: DurableToolCall) -> Generator[None]:
    """Make ``call`` the current durable call while the block runs (the tool activity)."""
    token = _CURRENT.set(call)
    try:
        yield
    finally:
        _CURRENT.reset(token)
