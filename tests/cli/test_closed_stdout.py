"""When stdout's reader leaves (``pi-sdk prompt ... | head``): ``pi_sdk/_cli/closed_stdout.py``.

In process: the guard stops handing events to its listener at the first broken pipe, aborts the
run once and points stdout at the null device; stdout pointed there takes later writes without
an error; a stdout that is no real file (a test's capture) is left as it is. The real pipe is
``test_prompt.py``'s.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_sdk._cli import closed_stdout
from pi_sdk._cli.closed_stdout import EXIT_BROKEN_PIPE, PipeGuard, silence_stdout


def test_the_status_is_128_plus_sigpipe():
    import signal

    assert EXIT_BROKEN_PIPE == 128 + signal.SIGPIPE == 141


def test_the_guard_stops_at_the_first_broken_pipe_and_aborts_once(
    monkeypatch: pytest.MonkeyPatch,
):
    seen: list[Any] = []
    aborts: list[str] = []
    silenced: list[bool] = []
    monkeypatch.setattr(closed_stdout, "silence_stdout", lambda: silenced.append(True))

    def listener(event: Any) -> None:
        if event == "broken":
            raise BrokenPipeError(32, "gone")
        seen.append(event)

    guard = PipeGuard(listener, aborts.append)
    guard("a")  # pyright: ignore[reportArgumentType]
    assert not guard.closed
    guard("broken")  # pyright: ignore[reportArgumentType]
    guard("b")  # pyright: ignore[reportArgumentType]
    guard("broken")  # pyright: ignore[reportArgumentType]
    assert seen == ["a"]
    assert guard.closed
    assert aborts == ["stdout was closed by its reader"]
    assert silenced == [True]


def test_another_error_of_the_listener_is_not_swallowed():
    def listener(event: Any) -> None:
        raise OSError(5, "I/O error")

    guard = PipeGuard(listener, lambda reason: None)
    with pytest.raises(OSError):
        guard("a")  # pyright: ignore[reportArgumentType]
    assert not guard.closed


def test_a_silenced_stdout_takes_later_writes_and_loses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "out"
    with path.open("w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        out.write("before\n")
        out.flush()
        silence_stdout()
        out.write("after\n")
        out.flush()
        os.write(out.fileno(), b"raw\n")
    assert path.read_text() == "before\n"


def test_a_stdout_without_a_file_is_left_alone(monkeypatch: pytest.MonkeyPatch):
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stdout", captured)
    silence_stdout()
    print("still here")
    assert captured.getvalue() == "still here\n"
