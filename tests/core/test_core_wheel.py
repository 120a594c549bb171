"""The core wheel, installed the way a user installs it, pulls no test tooling (issue 26, item 5).

``pip install pi-sdk-core`` must pull neither vcrpy nor pytest, and pytest must load nothing of
ours from it (no ``pytest11`` entry point: the plugin is pi-sdk-pytest's). ``pi-sdk replay`` and
``pi-sdk demo`` must still work for a user who installs ``pi-sdk-core[cli]`` and a provider.

The wheels are built from this checkout (``uv build``) and installed into fresh venvs with
``uv pip install``, pinned to this environment's versions so that uv's cache serves them: offline
first, then from the package registry when the cache lacks an index page (a fresh CI machine).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

INSPECT = """
import importlib.metadata as md, importlib.util, json, sys
import pi_sdk, pi_sdk.testing
pi_sdk.testing.ScriptedProvider(["hi"])  # the scripted provider needs neither
print(json.dumps({
    "imported": sorted(m for m in sys.modules if m.split(".")[0] in ("vcr", "yaml", "pytest")),
    "installed": [n for n in ("vcr", "yaml", "pytest") if importlib.util.find_spec(n)],
    "pytest11": sorted(f"{e.name}={e.value}" for e in md.entry_points(group="pytest11")),
    "distributions": sorted(d.metadata["Name"].lower() for d in md.distributions()),
}))
"""


def _uv() -> str:
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        pytest.fail("uv is needed to build the wheel (run the tests with `uv run`)")
    return uv


def _run_uv(*args: str, cwd: Path = ROOT) -> None:
    """Run uv offline; again with the registry when the offline run could not resolve."""
    for mode in ("--offline", "--no-offline"):
        result = subprocess.run(
            [_uv(), *args, mode], cwd=cwd, capture_output=True, text=True, timeout=300
        )
        if result.returncode == 0:
            return
    raise AssertionError(f"uv {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


def _wheel(package: str, out: Path) -> Path:
    _run_uv("build", "--package", package, "--wheel", "--quiet", "-o", str(out))
    [wheel] = out.glob(f"{package.replace('-', '_')}-*.whl")
    return wheel


def _venv(folder: Path, *requirements: str) -> Path:
    """A fresh venv with ``requirements``, pinned to the versions this environment has."""
    pins = subprocess.run(
        [_uv(), "pip", "freeze", "--python", sys.executable],
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
    _run_uv("venv", "--quiet", "--python", sys.executable, str(venv), cwd=folder)
    python = venv / "bin" / "python"
    pip = ("pip", "install", "--quiet", "--python", str(python), "-c", str(constraints))
    _run_uv(*pip, *requirements, cwd=folder)  # not in ROOT: its [tool.uv] compiles bytecode
    return python


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    return {package: _wheel(package, out) for package in ("pi-sdk-core", "pi-sdk-anthropic")}


def test_the_core_wheel_pulls_no_vcrpy_no_pytest_and_registers_no_pytest_plugin(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheels["pi-sdk-core"]) as wheel:
        wheel.extractall(tmp_path / "x")
    [info] = (tmp_path / "x").glob("pi_sdk_core-*.dist-info")
    assert "pytest11" not in (info / "entry_points.txt").read_text(encoding="utf-8")
    assert "vcrpy" not in (info / "METADATA").read_text(encoding="utf-8").split("extra ==")[0]
    assert (tmp_path / "x" / "pi_sdk" / "_cli" / "anthropic_demo.yaml").is_file()

    python = _venv(tmp_path, str(wheels["pi-sdk-core"]))
    result = subprocess.run(
        [str(python), "-c", INSPECT], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["imported"] == []
    assert report["installed"] == []  # neither vcrpy (nor its YAML) nor pytest was pulled
    assert report["pytest11"] == []
    assert "pi-sdk-core" in report["distributions"]
    assert not {"vcrpy", "pytest", "pi-sdk-pytest"} & set(report["distributions"])


def test_replay_and_demo_work_with_the_cli_extra_and_a_provider(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    core = f"pi-sdk-core[cli] @ {wheels['pi-sdk-core'].as_uri()}"
    python = _venv(tmp_path, core, str(wheels["pi-sdk-anthropic"]))
    cli = python.with_name("pi-sdk")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    demo = subprocess.run(
        [str(cli), "demo", "--json"], capture_output=True, text=True, timeout=120, env=env
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    events = [json.loads(line) for line in demo.stdout.splitlines()]
    assert [e["type"] for e in events].count("done") == len({e["interaction"] for e in events})
    assert all(e["type"] != "error" for e in events)

    from pi_sdk._cli.replay import DEMO_CASSETTE

    replayed = subprocess.run(
        [str(cli), "replay", "--json", str(DEMO_CASSETTE)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert replayed.returncode == 0, replayed.stderr
    again = [json.loads(line) for line in replayed.stdout.splitlines()]
    assert [(e["type"], e.get("delta")) for e in again] == [
        (e["type"], e.get("delta")) for e in events
    ]
