"""Installing a package the way a user does: a wheel built from its folder, into a folder.

``uv pip install --offline --no-deps --target SITE PROJECT`` builds the wheel (hatchling, from
uv's cache) and installs it into ``SITE``; with ``SITE`` on ``PYTHONPATH`` a child process sees
its entry points as an installed distribution's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["clean_env", "install_into"]


def clean_env() -> dict[str, str]:
    """The environment without anything this test run set up for Python or pytest, or keys."""
    drop = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PI_SDK_LOAD_PLUGINS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.endswith("_API_KEY")}


def install_into(project: Path, site: Path) -> dict[str, str]:
    """Install the package in ``project`` into ``site``; return an environment that sees it."""
    uv = os.environ.get("UV") or shutil.which("uv")
    assert uv, "uv is needed to install a package (run the tests with `uv run`)"
    run_ok([uv, "pip", "install", "--offline", "--no-deps", "--target", str(site), str(project)])
    return {**clean_env(), "PYTHONPATH": str(site)}


def run_ok(
    command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (text output captured, 120 s at most); fail the test with its output
    unless it exits 0."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done
