"""Many durable runs over several worker processes while a chaos loop SIGKILLs them.

:func:`run_chaos` starts ``workers`` worker processes (``temporal_chaos_worker.py``), starts
``runs`` agent runs at once (``temporal_chaos_agent``: ``turns`` turns of two tools, every
``slow_every``-th run with a slow tool), and until every run has ended, SIGKILLs a random worker
every ``kill_every_s`` seconds (a random time between half and one and a half of it, and not
before the previous replacement polls its task queue) and starts a replacement. Then it reads
every run's result and workflow history, the tools' log and the ledger, and returns a
:class:`ChaosReport`: the correctness figures (lost runs, completed tool executions that ran
again, ledger effects that happened twice) and the capacity figures (time to complete, runs
per minute per worker, history size, recovery after a kill).

"Completed" is Temporal's: an execution whose result the history records
(``ActivityTaskCompleted``, from the attempt its ``ActivityTaskStarted`` names). A tool that
returned on a worker killed before the result reached the server is *interrupted*, and runs
again, as documented; its idempotency key makes its effect happen once (the ledger).
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from pi_sdk_temporal import (
    MODEL_ACTIVITY,
    TOOL_ACTIVITY,
    ActivitySettings,
    AgentRun,
    prompt_input,
    start_agent,
)

from _support.temporal import WorkerProcess
from _support.temporal_chaos_agent import answer, open_ledger, prompt

CHAOS_WORKER = Path(__file__).with_name("temporal_chaos_worker.py")


FAST_MS = 20
"""How long the ``work`` tool takes in the runs that are not slow."""


@dataclass(kw_only=True)
class ChaosSettings:
    runs: int = 200
    workers: int = 4
    kill_every_s: float = 5.0
    """0: no kills (the baseline the benchmark compares with)."""
    seed: int = 0
    """Seeds the choice of the worker to kill and of the time between kills."""
    deadline_s: float = 30 * 60
    """A run not ended this long after the start is counted lost."""
    turns: int = 5
    """Turns that call the two tools; each run then answers in one more model call."""
    slow_every: int = 5
    """Every this many runs, one has a slow ``work`` tool."""
    slow_ms: int = 3000
    heartbeat_timeout_s: float = 5.0
    """The activities' heartbeat timeout: how soon a killed worker's calls run elsewhere. On an
    oversubscribed machine 2 s was too short: heartbeats arrived late, and live calls of slow
    tools were timed out and retried again and again."""
    task_timeout_s: float = 10.0
    """The workflow task timeout (Temporal's default): how soon a killed worker's workflow task
    runs elsewhere."""


@dataclass
class _Call:
    """One activity (one model call or tool execution) as the history tells it."""

    kind: str
    key: str
    scheduled: int = 0
    completed_attempt: int = 0


@dataclass(kw_only=True)
class ChaosReport:
    settings: ChaosSettings
    completed_runs: int = 0
    lost_runs: list[str] = field(default_factory=list[str])
    """Runs that did not end with the expected transcript (id: what went wrong)."""
    tool_executions: int = 0
    """Tool executions whose result the histories record (one per tool call)."""
    repeated_completed: list[str] = field(default_factory=list[str])
    """Tool calls that ran again after their result was recorded, or were scheduled twice."""
    interrupted_tools: int = 0
    """Tool executions cut by a kill (or timed out) and run again."""
    interrupted_after_end: int = 0
    """Of those, executions that had returned, but on a worker killed before its result was in."""
    interrupted_models: int = 0
    """Model calls cut by a kill and sent again."""
    deduplicated_effects: int = 0
    """Re-runs of ``record`` that found their key in the ledger and did nothing again."""
    ledger_rows: int = 0
    duplicated_effects: list[str] = field(default_factory=list[str])
    """(run, step) pairs the ledger holds more than once: an effect that happened twice."""
    kills: int = 0
    complete_s: list[float] = field(default_factory=list[float])
    wall_s: float = 0.0
    history_events: list[int] = field(default_factory=list[int])
    history_bytes: list[int] = field(default_factory=list[int])
    recovery_s: list[float] = field(default_factory=list[float])
    """Per interrupted execution: from the kill to its next attempt's start on another worker."""
    completed_attempts: dict[str, int] = field(default_factory=dict[str, int])
    """Per tool call (its idempotency key): the attempt whose result the history records."""

    def runs_per_minute_per_worker(self) -> float:
        if not self.wall_s:
            return 0.0
        return self.completed_runs / (self.wall_s / 60) / self.settings.workers

    def rows(self) -> list[tuple[str, str]]:
        """The figures as (name, value) rows."""
        s = self.settings
        return [
            ("runs started", f"{s.runs} ({s.turns} tool turns x 2 tools + an answer each)"),
            ("worker processes", f"{s.workers}, one SIGKILLed every ~{s.kill_every_s:g} s"
             if s.kill_every_s else f"{s.workers}, no kills"),
            ("workers killed (and replaced)", str(self.kills)),
            ("completed runs", str(self.completed_runs)),
            ("lost runs", str(len(self.lost_runs))),
            ("tool executions completed", str(self.tool_executions)),
            ("completed tool executions that ran again", str(len(self.repeated_completed))),
            ("tool executions interrupted and re-run", str(self.interrupted_tools)),
            ("  of which had returned before the kill", str(self.interrupted_after_end)),
            ("model calls interrupted and re-sent", str(self.interrupted_models)),
            ("ledger effects (exactly-once tool)", str(self.ledger_rows)),
            ("  re-runs deduplicated by idempotency key", str(self.deduplicated_effects)),
            ("  effects that happened twice", str(len(self.duplicated_effects))),
            ("time to complete p50 / p99", _pcts(self.complete_s, 50, 99)),
            ("wall time, first start to last close", f"{self.wall_s:.1f} s"),
            ("runs per minute per worker", f"{self.runs_per_minute_per_worker():.1f}"),
            ("history events per run mean / max", _mean_max(self.history_events)),
            ("history bytes per run mean / max", _mean_max(self.history_bytes)),
            ("recovery after a kill p50 / max", _pcts(self.recovery_s, 50, 100)),
            ("  heartbeat timeout / workflow task timeout",
             f"{s.heartbeat_timeout_s:g} s / {s.task_timeout_s:g} s"),
        ]  # fmt: skip


def _pct(values: Sequence[float], percent: int) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(percent / 100 * len(ordered)) - 1))
    return f"{ordered[index]:.2f}"


def _pcts(values: Sequence[float], low: int, high: int) -> str:
    return f"{_pct(values, low)} / {_pct(values, high)} s"


def _mean_max(values: Sequence[int]) -> str:
    if not values:
        return "-"
    return f"{statistics.fmean(values):,.0f} / {max(values):,}"


class _Chaos:
    """The worker processes, and the loop that kills one at random and starts another."""

    def __init__(self, config: dict[str, Any], settings: ChaosSettings) -> None:
        self.config = config
        self.settings = settings
        self.random = random.Random(settings.seed)
        self.workers: list[WorkerProcess] = []
        self.ready: set[WorkerProcess] = set()
        self.kills: list[tuple[int, float]] = []
        self.starting: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        started = [WorkerProcess(self.config, CHAOS_WORKER) for _ in range(self.settings.workers)]
        self.workers = list(await asyncio.gather(*(w.ready() for w in started)))
        self.ready.update(self.workers)

    async def _replace(self) -> None:
        worker = WorkerProcess(self.config, CHAOS_WORKER)
        self.workers.append(worker)
        await worker.ready()
        self.ready.add(worker)

    async def loop(self) -> None:
        every = self.settings.kill_every_s
        while True:
            await asyncio.sleep(every * self.random.uniform(0.5, 1.5))
            # Rolling kills: the previous replacement polls before the next kill, so that on a
            # slow machine (a worker taking longer to start than the kill interval) the workers
            # are not all gone at once.
            if self.starting:
                await asyncio.wait([self.starting[-1]])
            # Only a worker that polls: one still starting has nothing to lose.
            alive = [w for w in self.workers if w in self.ready and w.process.poll() is None]
            if not alive:
                continue
            victim = self.random.choice(alive)
            self.kills.append((victim.process.pid, time.time()))
            victim.kill()
            self.workers.remove(victim)
            self.starting.append(asyncio.ensure_future(self._replace()))

    async def stop(self) -> None:
        if self.starting:
            await asyncio.wait(self.starting, timeout=60)
        await asyncio.gather(*(asyncio.to_thread(w.stop) for w in self.workers))
        for task in self.starting:
            if task.done() and task.exception() is not None:
                raise RuntimeError("a replacement worker did not start") from task.exception()


async def run_chaos(
    client: Any, address: str, workdir: Path, settings: ChaosSettings
) -> ChaosReport:
    """Run the chaos scenario (module docstring) against the Temporal server at ``address``."""
    log, ledger = workdir / "calls.log", workdir / "ledger.sqlite"
    open_ledger(ledger).close()
    queue = f"chaos-{uuid.uuid4().hex[:8]}"
    config = {"address": address, "task_queue": queue, "log": str(log), "ledger": str(ledger)}
    chaos = _Chaos(config, settings)
    await chaos.start()
    activities = ActivitySettings(
        heartbeat_timeout_s=settings.heartbeat_timeout_s, retry_initial_interval_s=0.2,
        max_attempts=20,
    )  # fmt: skip
    prefix = uuid.uuid4().hex[:6]
    tags = [f"{prefix}{i:04d}" for i in range(settings.runs)]
    looping: asyncio.Task[None] | None = None
    try:
        runs = await asyncio.gather(
            *(_start(client, queue, tag, i, settings, activities) for i, tag in enumerate(tags))
        )
        if settings.kill_every_s > 0:
            looping = asyncio.ensure_future(chaos.loop())
        outcomes = await _results(runs, tags, settings)
    finally:
        if looping is not None:
            looping.cancel()
        await chaos.stop()
    report = ChaosReport(settings=settings, kills=len(chaos.kills))
    for tag, problem in zip(tags, outcomes, strict=True):
        if problem is None:
            report.completed_runs += 1
        else:
            report.lost_runs.append(f"{tag}: {problem}")
    await _read_histories(client, runs, report)
    _read_log(log, chaos.kills, report)
    _read_ledger(ledger, report)
    return report


async def _start(
    client: Any, queue: str, tag: str, number: int, settings: ChaosSettings, activities: Any
) -> AgentRun:
    slow = settings.slow_every and number % settings.slow_every == 0
    work_ms = settings.slow_ms if slow else FAST_MS
    return await start_agent(
        client,
        prompt_input("chaos", prompt(tag, settings.turns, work_ms), tools=["record", "work"],
                     activities=activities),
        id=f"chaos-{tag}", task_queue=queue,
        task_timeout=timedelta(seconds=settings.task_timeout_s),
    )  # fmt: skip


async def _results(runs: list[AgentRun], tags: list[str], settings: ChaosSettings) -> list[Any]:
    """Per run: ``None`` when it ended with the expected transcript, else what went wrong."""

    async def check(run: AgentRun, tag: str) -> str | None:
        try:
            result = await asyncio.wait_for(run.result(), settings.deadline_s)
        except TimeoutError:
            return f"not ended after {settings.deadline_s:g} s"
        except Exception as exc:  # noqa: BLE001 - a failed workflow is a lost run, reported
            return f"failed: {exc!r}"
        roles = [m["role"] for m in result.messages]
        expected_roles = ["user"] + ["assistant", "toolResult", "toolResult"] * settings.turns
        if roles != [*expected_roles, "assistant"]:
            return f"transcript roles {roles}"
        results = [m for m in result.messages if m["role"] == "toolResult"]
        failed = [m["content"][0]["text"] for m in results if m.get("isError")]
        if failed:
            return f"tool errors: {failed[:2]}"
        records = [m["content"][0]["text"] for m in results if m["toolName"] == "record"]
        if records != [f"recorded {tag}/{step}" for step in range(settings.turns)]:
            return f"record results {records}"
        text = result.messages[-1]["content"][0]["text"]
        if text != answer(tag, settings.turns):
            return f"answer {text!r}"
        return None

    return list(
        await asyncio.gather(*(check(run, tag) for run, tag in zip(runs, tags, strict=True)))
    )


async def _read_histories(client: Any, runs: list[AgentRun], report: ChaosReport) -> None:
    histories = await asyncio.gather(*(run.handle.fetch_history() for run in runs))
    first_start = float("inf")
    last_close = 0.0
    for history in histories:
        events = list(history.events)
        report.history_events.append(len(events))
        report.history_bytes.append(sum(event.ByteSize() for event in events))
        start = events[0].event_time.ToDatetime().timestamp()
        close = events[-1].event_time.ToDatetime().timestamp()
        first_start, last_close = min(first_start, start), max(last_close, close)
        report.complete_s.append(close - start)
        run_id = events[0].workflow_execution_started_event_attributes.original_execution_run_id
        _read_calls(run_id, events, report)
    report.wall_s = max(0.0, last_close - first_start)


def _read_calls(run_id: str, events: list[Any], report: ChaosReport) -> None:
    by_event: dict[int, _Call] = {}
    by_key: dict[str, _Call] = {}
    attempts: dict[int, int] = {}
    for event in events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            attributes = event.activity_task_scheduled_event_attributes
            kind = attributes.activity_type.name
            if kind == TOOL_ACTIVITY:
                data = json.loads(attributes.input.payloads[0].data)
                key = f"{data['tool_call_id']}"
            else:
                key = str(event.event_id)
            call = by_key.setdefault(key, _Call(kind, key))
            call.scheduled += 1
            by_event[event.event_id] = call
        elif event.HasField("activity_task_started_event_attributes"):
            attributes = event.activity_task_started_event_attributes
            attempts[event.event_id] = attributes.attempt
        elif event.HasField("activity_task_completed_event_attributes"):
            attributes = event.activity_task_completed_event_attributes
            call = by_event[attributes.scheduled_event_id]
            call.completed_attempt = attempts[attributes.started_event_id]
    for call in by_key.values():
        if call.kind == TOOL_ACTIVITY:
            report.tool_executions += call.completed_attempt > 0
            if call.scheduled > 1:
                report.repeated_completed.append(
                    f"{run_id}/{call.key}: scheduled {call.scheduled}x"
                )
            report.completed_attempts[f"{run_id}/{call.key}"] = call.completed_attempt
        elif call.kind == MODEL_ACTIVITY and call.completed_attempt > 1:
            report.interrupted_models += 1


def _read_log(log: Path, kills: list[tuple[int, float]], report: ChaosReport) -> None:
    """Tool starts after their completed attempt; interruptions; recovery times."""
    lines = [line.split() for line in log.read_text("utf-8").splitlines()] if log.exists() else []
    kill_times = sorted(at for _, at in kills)
    tool_lines: dict[str, list[list[str]]] = defaultdict(list)
    for line in lines:
        what, phase, key, attempt, _pid, at = line
        if int(attempt) > 1 and phase == "start":  # a re-run: measure from the kill before it
            before = [k for k in kill_times if k <= float(at)]
            if before:
                report.recovery_s.append(float(at) - before[-1])
        if what in ("record", "work"):
            tool_lines[key].append(line)
    for key, entries in tool_lines.items():
        completed = report.completed_attempts.get(key, 0)
        starts = Counter(int(line[3]) for line in entries if line[1] == "start")
        if any(attempt > completed for attempt in starts):
            report.repeated_completed.append(f"{key}: started after attempt {completed} completed")
        report.interrupted_tools += sum(starts.values()) - 1
        report.interrupted_after_end += sum(
            1 for line in entries if line[1] in ("end", "dedup") and int(line[3]) < completed
        )
        report.deduplicated_effects += sum(1 for line in entries if line[1] == "dedup")


def _read_ledger(ledger: Path, report: ChaosReport) -> None:
    db = open_ledger(ledger)
    try:
        report.ledger_rows = db.execute("SELECT COUNT(*) FROM ledger").fetchone()[0]
        twice = db.execute(
            "SELECT account, cents, COUNT(*) FROM ledger GROUP BY account, cents"
            " HAVING COUNT(*) > 1"
        ).fetchall()
        report.duplicated_effects = [f"{run}/{step}: {n} rows" for run, step, n in twice]
    finally:
        db.close()
