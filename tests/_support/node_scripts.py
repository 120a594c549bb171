"""pi's own code as a process for the interop tests: a server script and a client script.

The scripts in ``tests/node`` share two conventions: a server mode prints ``{"url": ...}`` once
listening and serves until killed (:func:`node_server`); a client mode reads one JSON request on
standard input and prints one JSON line per event, then ``{"final": <the message>}``
(:func:`node_client`). The node binary is the caller's: the system ``node`` for pi 0.73.1, a
Node 22 for pi 1.6 (:mod:`_support.node22`).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["node_client", "node_server"]


@contextmanager
def node_server(binary: str, script: Path, *args: str) -> Iterator[str]:
    """Run ``script``'s server mode (``args``); yield its URL; kill it on the way out."""
    process = subprocess.Popen(
        [binary, str(script), *args],
        cwd=script.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            pytest.fail(f"{script.name} did not start: {process.stderr.read()}")  # type: ignore[union-attr]
        yield json.loads(line)["url"]
    finally:
        process.kill()
        process.wait()


async def node_client(
    binary: str, script: Path, *args: str, request: dict[str, Any]
) -> tuple[list[Any], Any]:
    """Run ``script``'s client mode with ``request`` on stdin: (its events, its final message)."""

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [binary, str(script), *args],
            cwd=script.parent,
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    done = await asyncio.to_thread(run)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return lines[:-1], lines[-1]["final"]
