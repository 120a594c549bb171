"""`.ci/run` runs the README's test command and checks what the docs promise (issue 14)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    """The two commands of the README's first code block, without their comments."""
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    assert block, "the README opens with a bash block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    return [line.split(";", 1)[-1].strip() for line in lines if line and not line.startswith("#")]


def test_the_ci_script_ends_with_the_readme_test_command() -> None:
    demo, tests = readme_commands()
    assert demo.endswith("uv run pi-sdk demo")
    install, _, test_command = tests.partition(" && ")
    assert install == "python3 -m pip install uv"
    assert ci_commands()[-1] == test_command


def test_the_ci_script_runs_lint_types_and_the_strict_docs_build_before_the_tests() -> None:
    commands = ci_commands()
    expected = ["ruff check .", "ruff format --check .", "pyright", "mkdocs build --strict"]
    positions = [next(i for i, c in enumerate(commands) if check in c) for check in expected]
    assert positions == sorted(positions) and positions[-1] < len(commands) - 1


def _conformance_dir_after_sourcing(root: Path, environ: dict[str, str]) -> str:
    """What ``PI_SDK_CONFORMANCE_DIR`` is after ``.ci/shared-env`` runs in the clone ``root``."""
    import shutil
    import subprocess

    (root / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "shared-env", root / ".ci" / "shared-env")
    script = 'source .ci/shared-env; printf %s "${PI_SDK_CONFORMANCE_DIR-<unset>}"'
    done = subprocess.run(
        ["bash", "-c", script], cwd=root, env=environ, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_the_ci_script_leaves_the_conformance_folder_unset_on_a_machine_without_shared(
    tmp_path: Path,
) -> None:
    # A set variable makes its folder required: set to a folder that is not there, the tests
    # that read recordings fail instead of skipping with the README's one message.
    base = {"PATH": "/usr/bin:/bin"}
    assert "source .ci/shared-env" in ci_commands()
    assert _conformance_dir_after_sourcing(tmp_path / "clone", base) == "<unset>"


def test_the_ci_script_points_at_the_shared_folder_beside_the_clone(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "conformance"
    shared.mkdir(parents=True)
    base = {"PATH": "/usr/bin:/bin"}
    assert _conformance_dir_after_sourcing(tmp_path / "clone", base) == str(shared)


def test_the_ci_script_keeps_a_conformance_folder_the_caller_set(tmp_path: Path) -> None:
    (tmp_path / "shared" / "conformance").mkdir(parents=True)
    environ = {"PATH": "/usr/bin:/bin", "PI_SDK_CONFORMANCE_DIR": "/elsewhere"}
    assert _conformance_dir_after_sourcing(tmp_path / "clone", environ) == "/elsewhere"
