"""The entry-point reader of plugin discovery gives importlib.metadata's answer, without it.

``pi_sdk._plugins.entry_points`` reads ``*.dist-info`` folders itself (importlib.metadata's import
and scan were 40% of discovery, issue 32 item 2). Every case compares it with
:func:`importlib.metadata.entry_points` on the same ``sys.path``: names, values, distribution
names and versions, and order.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pi_sdk._plugins import entry_points as scan


def _expected(group: str) -> list[tuple[object, ...]]:
    found = []
    for entry_point in importlib.metadata.entry_points(group=group):
        dist = entry_point.dist
        assert dist is not None
        found.append(
            (entry_point.name, entry_point.value, dist.metadata["Name"] or "", dist.version)
        )
    return found


def _read(group: str) -> list[tuple[object, ...]]:
    return [(e.name, e.value, e.dist_name, e.version) for e in scan.entry_points(group)]


def _dist(
    root: Path,
    folder: str,
    name: str,
    version: str,
    entry_points: str | None,
    metadata: str = "METADATA",
) -> Path:
    info = root / folder
    info.mkdir(parents=True)
    (info / metadata).write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nbody")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


@pytest.mark.parametrize("group", ["pi_sdk", "console_scripts", "pytest11", "no-such-group"])
def test_the_installed_environment_reads_the_same(group: str) -> None:
    assert _read(group) == _expected(group)


def test_the_installed_pi_sdk_group_is_read_by_the_fast_path(monkeypatch) -> None:
    # importlib.metadata is the fallback only: the environment tests run in takes the fast path
    monkeypatch.setattr(scan, "_from_importlib", lambda group: pytest.fail("fell back"))
    assert {"anthropic", "openai"} <= {e.name for e in scan.entry_points("pi_sdk")}


@pytest.fixture
def sites(tmp_path, monkeypatch):
    """Two site folders, first on ``sys.path`` (importlib's caches forgotten)."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setattr(sys, "path", [str(first), str(second), *sys.path])
    importlib.invalidate_caches()
    yield first, second
    importlib.invalidate_caches()


def test_first_distribution_of_a_normalized_name_wins_and_order_is_kept(sites) -> None:
    first, second = sites
    two = "[pi_sdk]\nb = m_b\na = m_a\n"
    _dist(first, "Pi.Test_Plug-2.0.dist-info", "Pi.Test_Plug", "2.0", two)
    _dist(second, "pi_test_plug-1.0.dist-info", "pi-test-plug", "1.0", "[pi_sdk]\nold = m_old\n")
    _dist(second, "zz_other-3.dist-info", "zz-other", "3", "[pi_sdk]\nz = m_z:obj.attr [extra]\n")
    text = "# comment\n\n[console_scripts]\ntool = m:main\n\n[pi_sdk]\n  c  =  m_c : x  \n"
    _dist(second, "aa_egg.egg-info", "aa-egg", "0.1", text, metadata="PKG-INFO")
    assert _read("pi_sdk") == _expected("pi_sdk")
    names = [e[0] for e in _read("pi_sdk")]
    assert "old" not in names and names.index("b") < names.index("a")
    assert ("c", "m_c : x", "aa-egg", "0.1") in _read("pi_sdk")


def test_a_line_without_equals_raises_as_importlib_does(sites) -> None:
    first, _ = sites
    _dist(first, "pi_broken_eps-1.dist-info", "pi-broken-eps", "1", "[other]\nnot a pair\n")
    with pytest.raises(TypeError) as expected:
        importlib.metadata.entry_points(group="pi_sdk")
    with pytest.raises(TypeError) as ours:
        scan.entry_points("pi_sdk")
    assert str(ours.value) == str(expected.value)


def test_unusual_layouts_are_left_to_importlib(sites, tmp_path) -> None:
    first, _ = sites
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("pi_zip_plug-1.dist-info/METADATA", "Name: pi-zip-plug\nVersion: 1\n")
        zipped.writestr("pi_zip_plug-1.dist-info/entry_points.txt", "[pi_sdk]\nzipped = m_zip\n")
    sys.path.insert(0, str(archive))
    _dist(first, "pi_upper-1.DIST-INFO", "pi-upper", "1", "[pi_sdk]\nupper = m_upper\n")
    assert _read("pi_sdk") == _expected("pi_sdk")
    assert {"zipped", "upper"} <= {e[0] for e in _read("pi_sdk")}


def test_a_folded_header_is_left_to_importlib(sites) -> None:
    first, _ = sites
    info = first / "pi_folded-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Summary: a\n  b\nName: pi-folded\nVersion: 1\n")
    (info / "entry_points.txt").write_text("[pi_sdk]\nfolded = m_folded\n")
    assert ("folded", "m_folded", "pi-folded", "1") in _read("pi_sdk")
    assert _read("pi_sdk") == _expected("pi_sdk")


def test_load_imports_the_module_and_follows_the_attributes(sites) -> None:
    first, _ = sites
    (first / "pi_test_ep_target.py").write_text("class Obj:\n    value = 42\n")
    eps = "[pi_sdk]\nmod = pi_test_ep_target\nattr = pi_test_ep_target:Obj.value [x]\n"
    _dist(first, "pi_test_ep-1.dist-info", "pi-test-ep", "1", eps)
    try:
        found = [e for e in scan.entry_points("pi_sdk") if e.dist_name == "pi-test-ep"]
        loaded = {e.name: e.load() for e in found}
        assert loaded["mod"].__name__ == "pi_test_ep_target"
        assert loaded["attr"] == 42
    finally:
        sys.modules.pop("pi_test_ep_target", None)


def test_discovery_does_not_import_importlib_metadata() -> None:
    probe = (
        "import json, sys, pi_sdk.plugins\n"
        "names = [n for n, _ in pi_sdk.plugins.get_plugin_manager().list_name_plugin()]\n"
        "print(json.dumps([len(names), 'importlib.metadata' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    count, imported = json.loads(done.stdout.splitlines()[-1])
    assert count >= 10
    assert imported is False
