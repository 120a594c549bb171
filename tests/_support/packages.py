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
    install = subprocess.run(
        [uv, "pip", "install", "--offline", "--no-deps", "--target", str(site), str(project)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return {**clean_env(), "PYTHONPATH": str(site)}
