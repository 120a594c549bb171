"""The README's install path, run as written, and every package ready to publish (issue 31, item 1).

``uv build --all-packages`` (the ``dist`` fixture) builds every package; the README's install
block is read and run: its ``uv pip install`` of the core with the CLI extra and one provider
from those wheels into a fresh venv, then ``pi-sdk --version``, ``pi-sdk demo`` (the cassette is
package data) and a ``pi-sdk prompt`` answered by a scripted loopback vendor (no real key, no
network). The wheels' metadata is checked as the package index will show it: versions in step,
internal dependencies pinned to that version, a Markdown long description with no link that only
works inside the repository, the MIT licence file, classifiers, project URLs.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env
from _support.loopback import text_reply
from _support.wheels import ROOT, install_block, readme_requirements

pytestmark = pytest.mark.timeout(600)  # building every package takes a minute

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
PACKAGES = sorted(
    tomllib.loads(path.read_text("utf-8"))["project"]["name"]
    for path in [ROOT / "pyproject.toml", *ROOT.glob("providers/*/pyproject.toml")]
    + [*ROOT.glob("plugins/*/pyproject.toml")]
)
_NOX_PYTHONS = re.search(r"python=\[(.*?)\]", (ROOT / "noxfile.py").read_text("utf-8"))
assert _NOX_PYTHONS
PYTHONS = re.findall(r'"(3\.\d+)"', _NOX_PYTHONS[1])
"""The Python versions the nox sessions test, each a classifier."""


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode("utf-8"))


def _wheel(dist: Path, package: str) -> Path:
    return dist / f"{package.replace('-', '_')}-{VERSION}-py3-none-any.whl"


def test_the_readme_install_block_works_from_the_built_wheels(
    dist: Path, user_cli: Path, tmp_path: Path
) -> None:
    commands = install_block()
    assert commands[1] == "uv build --all-packages -o dist"  # what the dist fixture ran
    for requirement in readme_requirements(dist):  # the files the README names were built
        assert Path(requirement.split("[")[0]).is_file(), requirement
    cli = user_cli
    home = tmp_path / "home"
    env = cli_env(home)  # no API key anywhere

    assert "pi-sdk --version" in commands
    version = subprocess.run([cli, "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"pi-sdk {VERSION}"

    assert any(c.startswith("pi-sdk demo") for c in commands)
    demo = subprocess.run([cli, "demo"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "✔ stop reason" in demo.stdout and "✘" not in demo.stdout

    [prompt] = [shlex.split(c) for c in commands if c.startswith("pi-sdk prompt")]
    with ThreadedLoopback([text_reply("anthropic-messages", "Hi from the wheel!")]) as vendor:
        scripted = {"ANTHROPIC_BASE_URL": vendor.url, "ANTHROPIC_API_KEY": "loopback-key-1"}
        answer = subprocess.run(
            [cli, *prompt[1:]], capture_output=True, text=True, env={**env, **scripted}
        )
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout == "Hi from the wheel!\n"
    assert "anthropic/claude-sonnet-4-5 · 5 in · 3 out" in answer.stderr


def test_every_package_has_a_wheel_and_an_sdist_at_one_version(dist: Path) -> None:
    for package in PACKAGES:
        stem = package.replace("-", "_")
        assert _wheel(dist, package).is_file(), package
        assert (dist / f"{stem}-{VERSION}.tar.gz").is_file(), package
    assert len(list(dist.glob("*.whl"))) == len(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_the_wheel_metadata_is_ready_for_the_package_index(dist: Path, package: str) -> None:
    meta = _metadata(_wheel(dist, package))
    assert meta["Name"] == package and meta["Version"] == VERSION
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    with zipfile.ZipFile(_wheel(dist, package)) as archive:
        [licence] = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(licence).decode() == (ROOT / "LICENSE").read_text("utf-8")
        assert any(n.endswith("/py.typed") for n in archive.namelist())
    classifiers = set(meta.get_all("Classifier") or [])
    assert {f"Programming Language :: Python :: {v}" for v in PYTHONS} <= classifiers
    assert {"Typing :: Typed", "Development Status :: 3 - Alpha"} <= classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the expression says it
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Repository", "Issues"} <= set(urls)
    # Internal dependencies move in step: another package of this repository at this version.
    for requirement in meta.get_all("Requires-Dist") or []:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)
        assert name
        if name[0].startswith("pi-sdk-") and name[0] != package:
            assert requirement.startswith(f"{name[0]}~={VERSION}"), requirement
    # The long description, as the index renders it.
    assert meta["Description-Content-Type"] == "text/markdown"
    description = meta.get_payload()
    assert isinstance(description, str)
    assert description.startswith(f"# {'pi-sdk' if package == 'pi-sdk-core' else package}\n")
    assert f"pip install {package}" in description
    relative = re.findall(r"\]\((?![a-z]+:|#)([^)]+)\)", description)
    assert relative == [], f"links that work only inside the repository: {relative}"


def test_set_version_moves_every_package_and_the_readme_in_step(tmp_path: Path) -> None:
    """scripts/set_version.py (docs/releasing.md) on a copy of the repository's files."""
    files = ["pyproject.toml", "README.md"] + [
        str(p.relative_to(ROOT)) for p in ROOT.glob("*s/*/pyproject.toml")
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((ROOT / name).read_text("utf-8"), encoding="utf-8")
    script = ROOT / "scripts" / "set_version.py"
    done = subprocess.run(
        ["python3", str(script), "0.2.0", "--root", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for name in files[:1] + files[2:]:
        project = tomllib.loads((tmp_path / name).read_text("utf-8"))["project"]
        assert project["version"] == "0.2.0", name
        internal = [d for d in project["dependencies"] if d.startswith("pi-sdk-")]
        assert all(d.endswith("~=0.2.0") for d in internal), (name, internal)
    readme = (tmp_path / "README.md").read_text("utf-8")
    assert "pi_sdk_core-0.2.0-py3-none-any.whl" in readme and VERSION + "-py3" not in readme
    bad = subprocess.run(
        ["python3", str(script), "2.0", "--root", str(tmp_path)], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "X.Y.Z" in bad.stderr
