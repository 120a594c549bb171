"""The core wheel, installed the way a user installs it, pulls no test tooling (issue 26, item 5).

``pip install pi-sdk-core`` must pull neither vcrpy nor pytest, and pytest must load nothing of
ours from it (no ``pytest11`` entry point: the plugin is pi-sdk-pytest's). ``pi-sdk replay`` and
``pi-sdk demo`` must still work for a user who installs ``pi-sdk-core[cli]`` and a provider.

The wheels are built from this checkout (``uv build --all-packages``, once per run: the ``dist``
fixture) and installed into fresh venvs (:mod:`_support.wheels`).
"""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from _support.wheels import fresh_venv

pytestmark = pytest.mark.timeout(600)  # building every package takes a minute

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


@pytest.fixture(scope="module")
def wheels(dist: Path) -> dict[str, Path]:
    return {
        package: next(dist.glob(f"{package.replace('-', '_')}-*.whl"))
        for package in ("pi-sdk-core", "pi-sdk-anthropic")
    }


def test_the_core_wheel_pulls_no_vcrpy_no_pytest_and_registers_no_pytest_plugin(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheels["pi-sdk-core"]) as wheel:
        wheel.extractall(tmp_path / "x")
    [info] = (tmp_path / "x").glob("pi_sdk_core-*.dist-info")
    assert "pytest11" not in (info / "entry_points.txt").read_text(encoding="utf-8")
    assert "vcrpy" not in (info / "METADATA").read_text(encoding="utf-8").split("extra ==")[0]
    assert (tmp_path / "x" / "pi_sdk" / "_cli" / "anthropic_demo.yaml").is_file()

    python = fresh_venv(tmp_path, str(wheels["pi-sdk-core"]))
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


def test_replay_and_demo_work_with_the_cli_extra_and_a_provider(user_cli: Path) -> None:
    cli = user_cli  # pi-sdk-core[cli] and pi-sdk-anthropic, installed as the README says
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
