"""A long agent run continues-as-new before Temporal's history limits (issue 33), carrying the
transcript, the queued messages and the event log's indices over; nothing runs twice."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from _support.temporal import WorkerProcess
from _support.temporal_chaos import CHAOS_WORKER
from _support.temporal_chaos_agent import answer, open_ledger, prompt
from _support.temporal_recent import RecentContextAgent
from pi_sdk_temporal import AgentRun, AgentWorkflow, prompt_input, start_agent

LONG_TURNS = int(os.environ.get("PI_SDK_LONG_TURNS", "1000"))

EVENT_LIMIT = 51_200
BYTE_LIMIT = 50 * 1024 * 1024


async def _chain(client: Any, run: AgentRun) -> list[tuple[int, int]]:
    """(events, bytes) of every run of the workflow, following continue-as-new."""
    sizes: list[tuple[int, int]] = []
    run_id: str | None = run.handle.first_execution_run_id
    while run_id:
        handle = client.get_workflow_handle(run.id, run_id=run_id)
        events = [event async for event in handle.fetch_history_events()]
        sizes.append((len(events), sum(event.ByteSize() for event in events)))
        last = events[-1]
        attributes = last.workflow_execution_continued_as_new_event_attributes
        run_id = attributes.new_execution_run_id if last.HasField(
            "workflow_execution_continued_as_new_event_attributes"
        ) else None  # fmt: skip
    return sizes


def _setup(address: str, tmp_path: Path) -> tuple[dict[str, str], Path]:
    ledger = tmp_path / "ledger.sqlite"
    open_ledger(ledger).close()
    queue = f"long-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "calls.log"
    return {"address": address, "task_queue": queue, "log": str(log), "ledger": str(ledger)}, ledger


async def _start(
    client: Any,
    config: dict[str, str],
    tag: str,
    turns: int,
    work_ms: int,
    workflow: type[AgentWorkflow] = AgentWorkflow,
    **fields: Any,
) -> AgentRun:
    """Start a chaos-agent run of ``turns`` turns; ``fields``: more ``AgentRunInput`` fields."""
    return await start_agent(
        client,
        prompt_input("chaos", prompt(tag, turns, work_ms), tools=["record", "work"], **fields),
        id=f"long-{tag}",
        task_queue=config["task_queue"],
        workflow=workflow,
    )


async def _run_chain(
    client: Any, address: str, tmp_path: Path, turns: int, timeout_s: float, **fields: Any
) -> tuple[str, Any, list[tuple[int, int]], Path]:
    """Run ``turns`` chaos turns to the end on a worker of their own (``fields``: ``_start``'s).

    Returns the run's tag, its result, the (events, bytes) of each run of the chain, the ledger.
    """
    config, ledger = _setup(address, tmp_path)
    worker = await WorkerProcess(config, CHAOS_WORKER).ready()
    tag = uuid.uuid4().hex[:8]
    try:
        run = await _start(client, config, tag, turns, 0, **fields)
        result = await asyncio.wait_for(run.result(), timeout_s)
        return tag, result, await _chain(client, run), ledger
    finally:
        worker.stop()


def _assert_transcript(messages: list[dict[str, Any]], tag: str, turns: int) -> None:
    roles = [m["role"] for m in messages if m["role"] != "user"]
    assert roles == ["assistant", "toolResult", "toolResult"] * turns + ["assistant"]
    assert messages[-1]["content"][0]["text"] == answer(tag, turns)
    assert not [m for m in messages if m.get("isError")]  # every tool ran


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_a_thousand_turn_run_continues_as_new(client, temporal_address, tmp_path) -> None:
    # The model sees the last turns only; the transcript grows.
    tag, result, sizes, ledger = await _run_chain(
        client, temporal_address, tmp_path, LONG_TURNS, 880, workflow=RecentContextAgent
    )
    assert [m for m in result.messages if m["role"] == "system"] == []
    _assert_transcript(result.messages, tag, LONG_TURNS)
    assert len(sizes) >= 2, sizes  # it continued-as-new (Temporal's suggestion), at least once
    assert all(events < EVENT_LIMIT and size < BYTE_LIMIT for events, size in sizes), sizes
    db = open_ledger(ledger)
    rows = db.execute("SELECT COUNT(*), COUNT(DISTINCT cents) FROM ledger").fetchone()
    assert rows == (LONG_TURNS, LONG_TURNS)  # each turn's effect once, across the runs


async def test_a_continued_run_does_not_announce_its_unchanged_tools_again(
    client, temporal_address, tmp_path
) -> None:
    """The defect the 1,000-turn run found, in a few turns: each run that continued-as-new
    took its tools for new ones and added a system message announcing them (the carried state
    lacked the transcript's base tools)."""
    turns = 8
    tag, result, sizes, _ = await _run_chain(
        client, temporal_address, tmp_path, turns, 120, history_max_events=40
    )
    assert len(sizes) >= 2, sizes  # it continued-as-new
    assert [m for m in result.messages if m["role"] == "system"] == []
    _assert_transcript(result.messages, tag, turns)


@pytest.mark.slow  # 24 turns over a chain of continued runs
async def test_continued_runs_keep_queues_and_event_indices(
    client, temporal_address, tmp_path
) -> None:
    turns = 24
    config, ledger = _setup(temporal_address, tmp_path)
    worker = await WorkerProcess(config, CHAOS_WORKER).ready()
    tag = uuid.uuid4().hex[:8]
    try:
        run = await _start(client, config, tag, turns, 40, history_max_events=60)
        events: list[dict[str, Any]] = []

        async def read() -> None:
            async for event in run.events(poll_s=0.05):
                events.append(event)

        reader = asyncio.ensure_future(read())
        for number in range(6):  # steering messages land in several runs of the chain
            await asyncio.sleep(0.4)
            await run.steer(f"note {number}")
        await run.follow_up("one more thing")
        result = await asyncio.wait_for(run.result(), 120)
        await asyncio.wait_for(reader, 30)
        state = await run.state()
        sizes = await _chain(client, run)
    finally:
        worker.stop()

    assert len(sizes) >= 3, sizes
    texts = [m["content"][0]["text"] for m in result.messages if m["role"] == "user"]
    assert sorted(texts[1:]) == sorted([*(f"note {n}" for n in range(6)), "one more thing"])
    assert texts[-1] == "one more thing"  # a follow-up comes once the work is done
    # Every event once, in order, across the runs: one agent_start/agent_end pair per run.
    assert state.events == len(events)
    kinds = [event["type"] for event in events]
    assert kinds.count("agent_start") == kinds.count("agent_end") == len(sizes)
    assert kinds.count("tool_execution_end") == 2 * turns
    ends = [e["message"]["role"] for e in events if e["type"] == "message_end"]
    assert ends == [m["role"] for m in result.messages]
    assert open_ledger(ledger).execute("SELECT COUNT(*) FROM ledger").fetchone() == (turns,)
