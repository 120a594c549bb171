"""Building every package's wheel and installing wheels into fresh venvs, as a user does.

``uv build --all-packages`` builds a wheel and an sdist of each workspace package (the core, the
providers, the plugins) into one folder; :func:`fresh_venv` makes a venv and installs
requirements into it with ``uv pip install``, pinned to the versions this environment has so
that uv's cache serves them: offline first, then from the package registry when the cache lacks
an index page (a fresh CI machine).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

__all__ = [
    "ROOT",
    "build_all",
    "fresh_venv",
    "install_block",
    "readme_requirements",
    "run_uv",
    "uv",
]

ROOT = Path(__file__).resolve().parents[2]


def uv() -> str:
    """The uv binary (``$UV``, or the one on ``PATH``)."""
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("uv is needed to build the wheels (run the tests with `uv run`)")
    return found


def run_uv(*args: str, cwd: Path = ROOT) -> None:
    """Run uv offline; again with the registry when the offline run could not resolve."""
    result = None
    for mode in ("--offline", "--no-offline"):
        result = subprocess.run(
            [uv(), *args, mode], cwd=cwd, capture_output=True, text=True, timeout=600
        )
        if result.returncode == 0:
            return
    assert result is not None
    raise AssertionError(f"uv {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


def build_all(out: Path) -> Path:
    """``uv build --all-packages -o OUT``: a wheel and an sdist of every package; returns OUT."""
    run_uv("build", "--all-packages", "--quiet", "-o", str(out))
    return out


def fresh_venv(folder: Path, *requirements: str) -> Path:
    """A fresh venv in ``folder/venv`` with ``requirements``; returns its ``python``."""
    pins = subprocess.run(
        [uv(), "pip", "freeze", "--python", sys.executable],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.splitlines()
    constraints = folder / "constraints.txt"
    constraints.write_text(
        "\n".join(p for p in pins if "==" in p and not p.startswith("pi-sdk")), encoding="utf-8"
    )
    venv = folder / "venv"
    run_uv("venv", "--quiet", "--python", sys.executable, str(venv), cwd=folder)
    python = venv / "bin" / "python"
    pip = ("pip", "install", "--quiet", "--python", str(venv), "-c", str(constraints))
    run_uv(*pip, *requirements, cwd=folder)  # not in ROOT: its [tool.uv] compiles bytecode
    return python


def install_block() -> list[str]:
    """The commands of the README's "Install (as a user)" block, comments dropped."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Install (as a user)", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the install section has a bash block"
    return [line.split("  #")[0].strip() for line in block[1].splitlines() if line.strip()]


def readme_requirements(dist: Path) -> list[str]:
    """What the README's ``uv pip install --python VENV ...`` installs (``dist/`` at ``dist``)."""
    [install] = [c for c in install_block() if c.startswith("uv pip install ")]
    arguments = shlex.split(install)[3:]
    assert arguments[:2] == ["--python", "~/.venvs/pi"], arguments
    return [a.replace("dist/", f"{dist}/", 1) for a in arguments[2:]]
