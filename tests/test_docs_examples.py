"""The docs' runnable examples, run the way a reader would: copied into an empty folder, run there.

Every code block with a ``title="<file name>"`` is a file the reader is told to create. These
tests write exactly those files (and nothing else: no conftest, no ini file, no path set up by
this repository) into a temporary folder and run them in a fresh interpreter, so an example that
only works inside this repository fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
_TITLED_BLOCK = re.compile(r'^```(\w+) title="([^"]+)"\n(.*?)^```$', re.M | re.S)


def titled_blocks(page: str) -> dict[str, str]:
    """Title -> code of every titled code block of ``docs/<page>``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return {title: body for _lang, title, body in _TITLED_BLOCK.findall(text)}


def write_files(files: dict[str, str], root: Path) -> None:
    for title, body in files.items():
        path = root / title
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


def clean_env() -> dict[str, str]:
    """The environment without anything this test run set up for Python or pytest."""
    drop = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PI_SDK_LOAD_PLUGINS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.endswith("_API_KEY")}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_session_example_runs_as_printed(tmp_path: Path) -> None:
    files = titled_blocks("sessions.md")
    assert set(files) == {"session_example.py"}
    write_files(files, tmp_path)
    result = run(["session_example.py"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "saved with scripted-1 - 2 messages",
        "About 2.1 million.",
    ]
    lines = (tmp_path / "chat.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == '{"format":"pi-sdk-session","version":1,"metadata":{"model":"scripted-1"}}'
    assert len(lines) == 3
