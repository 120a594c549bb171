"""Which run ``AgentRun.events`` reads first: the handle's own run, else its first execution.

A handle names a run (``run_id``), or only the chain's first run (``first_execution_run_id``),
or neither. A named run is read through the client (so a handle for an earlier run reads that
run's events, not the latest run's; the client is asked once per poll); a handle naming none is
read as it is. In-process stand-ins for the handle and the client: no Temporal server.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_temporal import AgentRun
from temporalio.client import WorkflowExecutionStatus


class StandInRun:
    """A closed run with one event: its handle answers the events query and describe."""

    def __init__(self, run_id: str | None) -> None:
        self.run_id = run_id

    async def query(self, query: Any, cursor: int) -> list[dict[str, Any]]:
        return [{"type": "agent_end", "run": self.run_id}][cursor:]

    async def describe(self) -> Any:
        return type("Description", (), {"status": WorkflowExecutionStatus.COMPLETED})()


class StandInClient:
    def __init__(self) -> None:
        self.asked: list[str | None] = []

    def get_workflow_handle(self, workflow_id: str, *, run_id: str | None = None) -> StandInRun:
        assert workflow_id == "agent-1"
        self.asked.append(run_id)
        return StandInRun(run_id)


class StandInHandle(StandInRun):
    """The handle the run was made with; read directly when it names no run at all."""

    id = "agent-1"

    def __init__(self, run_id: str | None, first_execution_run_id: str | None) -> None:
        super().__init__(run_id)
        self.first_execution_run_id = first_execution_run_id

    async def query(self, query: Any, cursor: int) -> list[dict[str, Any]]:
        return [{"type": "agent_end", "run": "the handle's"}][cursor:]


@pytest.mark.parametrize(
    ("run_id", "first", "asked", "read"),
    [
        ("run-2", "run-1", ["run-2"] * 2, "run-2"),  # a handle for a later run of the chain
        (None, "run-1", ["run-1"] * 2, "run-1"),  # only the chain's first run is known
        (None, None, [], "the handle's"),  # neither: the handle itself (the latest run)
    ],
)
async def test_events_are_read_from_the_handles_run_else_its_first_run(
    run_id: str | None, first: str | None, asked: list[str], read: str
) -> None:
    client = StandInClient()
    run = AgentRun(StandInHandle(run_id, first), client=client)  # type: ignore[arg-type]
    events = [event async for event in run.events()]
    assert (client.asked, events) == (asked, [{"type": "agent_end", "run": read}])
