"""A standalone clone (no ../shared/conformance) reports the skipped conformance tests in one line.

Runs the test files that read the conformance folder in a fresh pytest whose default folder is
made to point nowhere (``PI_SDK_CONFORMANCE_DIR`` unset), as in a clone that is not next to
``shared/``, and reads the short test summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_absent_conformance_folder_is_one_clear_skip_line(tmp_path: Path) -> None:
    missing = tmp_path / "shared" / "conformance"
    (tmp_path / "absent_conformance.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            from pathlib import Path

            sys.path.insert(0, {str(TESTS)!r})
            from _support import conformance as conformance_check

            conformance_check.DEFAULT_DIR = Path({str(missing)!r})
            """
        ),
        encoding="utf-8",
    )
    files = sorted(
        str(path)
        for path in TESTS.rglob("test_*.py")
        if path != Path(__file__).resolve() and "conformance_dir" in path.read_text("utf-8")
    )
    assert len(files) >= 3, files
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PI_SDK_CONFORMANCE_DIR", "PI_SDK_CONFORMANCE_NEXT_DIR", "PYTEST_ADDOPTS")
    }
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "absent_conformance", "-p", "no:cacheprovider",
         "-q", "-rs", *files],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    skip_lines = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skip_lines) == 1, "\n".join(skip_lines)
    (line,) = skip_lines
    assert f"conformance cassettes not found at {missing}" in line
    assert "set PI_SDK_CONFORMANCE_DIR to a conformance folder to run them" in line
    skipped = int(line.split("[", 1)[1].split("]", 1)[0])
    assert f"{skipped} skipped" in result.stdout.splitlines()[-1]
