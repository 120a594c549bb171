"""Run the tests that own the file cosmic-ray has just mutated (``nox -s mutation``).

cosmic-ray rewrites one source file in place before each run; ``git diff`` names it. A
library file maps to the test folders that exercise it (its own area, plus the cross-API
provider suites for anything a provider's stream passes through); the run stops at the
first failure (``-x``), since one failing test kills the mutant. Exit status is pytest's.
"""

from __future__ import annotations

import os
import subprocess
import sys

# Mutated path prefix -> the tests that cover it; the first matching prefix wins.
OWNERS: list[tuple[str, list[str]]] = [
    ("pi_sdk/agent/", ["tests/agent", "tests/plugins"]),
    ("pi_sdk/plugins/", ["tests/plugins", "tests/core"]),
    ("pi_sdk/testing/", ["tests/testing", "tests/test_migration.py"]),
    (
        "pi_sdk/_transform.py",
        ["tests/core/test_transform.py", "tests/test_migration.py", "tests/providers"],
    ),
    ("pi_sdk/", ["tests/core", "tests/providers"]),
]
VENDOR_TESTS = ["tests/providers/test_contract.py", "tests/providers/test_conformance.py"]


def owners(path: str) -> list[str]:
    """The test paths for one mutated file."""
    if path.startswith("providers/"):
        vendor = path.split("/")[1]
        return [f"tests/providers/{vendor}", *VENDOR_TESTS]
    for prefix, tests in OWNERS:
        if path.startswith(prefix):
            return tests
    return ["tests"]


def main() -> int:
    changed = subprocess.run(
        ["git", "diff", "--name-only", "--", "pi_sdk", "providers"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    tests = sorted({t for path in changed for t in owners(path)}) or ["tests"]
    tests = [t for t in tests if os.path.exists(t)]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
