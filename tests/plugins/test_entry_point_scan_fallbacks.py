"""Each layout the fast entry-point reader leaves to importlib.metadata, alone on ``sys.path``
(``pi_sdk/_plugins/entry_points.py``): the answer is importlib's, and the fallback is what gave
it; what the reader handles itself (lines before any section) it answers without falling back.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_sdk._plugins import entry_points as scan

GROUP = "pi_sdk_scan_test"


def _importlib(group: str) -> list[tuple[Any, ...]]:
    found = []
    for entry_point in importlib.metadata.entry_points(group=group):
        dist = entry_point.dist
        name = "" if dist is None else dist.metadata["Name"] or ""
        found.append((entry_point.name, entry_point.value, name, getattr(dist, "version", "")))
    return found


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """A site folder alone on ``sys.path``, and a count of the fallbacks taken."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.setattr(sys, "path", [str(root)])
    fallbacks: list[str] = []
    real = scan._from_importlib  # pyright: ignore[reportPrivateUsage]

    def counted(group: str) -> list[scan.FoundEntryPoint]:
        fallbacks.append(group)
        return real(group)

    monkeypatch.setattr(scan, "_from_importlib", counted)
    importlib.invalidate_caches()
    yield root, fallbacks
    importlib.invalidate_caches()


def _read(group: str = GROUP) -> list[tuple[Any, ...]]:
    return [(e.name, e.value, e.dist_name, e.version) for e in scan.entry_points(group)]


def _info(folder: Path, metadata: str | None, entry_points: str, meta_file: str = "METADATA"):  # noqa: ANN202
    folder.mkdir(parents=True)
    if metadata is not None:
        (folder / meta_file).write_text(metadata)
    (folder / "entry_points.txt").write_text(entry_points)
    return folder


def test_an_info_folder_with_an_upper_case_suffix_is_left_to_importlib(site: Any):
    root, fallbacks = site
    _info(root / "pi_upper-1.DIST-INFO", "Name: pi-upper\nVersion: 1\n", f"[{GROUP}]\nup = m\n")
    assert _read() == _importlib(GROUP) == [("up", "m", "pi-upper", "1")]
    assert fallbacks == [GROUP]


def test_an_info_folder_without_a_name_is_left_to_importlib(site: Any):
    root, fallbacks = site
    _info(root / ".dist-info", "Name: pi-nameless\nVersion: 2\n", f"[{GROUP}]\nn = m\n")
    assert _read() == _importlib(GROUP)
    assert fallbacks == [GROUP]


def test_an_info_folder_without_metadata_is_left_to_importlib(site: Any):
    root, fallbacks = site
    _info(root / "pi_bare-1.dist-info", None, f"[{GROUP}]\nbare = m\n")
    assert _read() == _importlib(GROUP)
    assert [e[0] for e in _read()] == ["bare"]
    assert fallbacks == [GROUP, GROUP]


def test_an_egg_folder_on_the_path_is_left_to_importlib(site: Any, monkeypatch: pytest.MonkeyPatch):
    root, fallbacks = site
    egg = root / "pi_egg-1.0-py3.egg"
    _info(egg / "EGG-INFO", "Name: pi-egg\nVersion: 1.0\n", f"[{GROUP}]\negg = m\n", "PKG-INFO")
    monkeypatch.setattr(sys, "path", [str(egg)])
    assert _read() == _importlib(GROUP)
    assert fallbacks == [GROUP]


def test_a_path_entry_that_is_not_a_string_is_left_to_importlib(
    site: Any, monkeypatch: pytest.MonkeyPatch
):
    root, fallbacks = site
    _info(root / "pi_pathobj-1.dist-info", "Name: pi-pathobj\nVersion: 1\n", f"[{GROUP}]\np = m\n")
    monkeypatch.setattr(sys, "path", [root])
    assert _read() == _importlib(GROUP) == [("p", "m", "pi-pathobj", "1")]
    assert fallbacks == [GROUP]


def test_another_distribution_finder_is_left_to_importlib(
    site: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root, fallbacks = site
    elsewhere = _info(
        tmp_path / "elsewhere" / "pi_found-3.dist-info",
        "Name: pi-found\nVersion: 3\n",
        f"[{GROUP}]\nfound = m\n",
    )

    class Finder(importlib.metadata.DistributionFinder):
        def find_spec(self, *args: Any) -> None:
            return None

        def find_distributions(self, context: Any = None) -> list[Any]:
            return [importlib.metadata.PathDistribution(elsewhere)]

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    ours = _read()
    assert ("found", "m", "pi-found", "3") in ours
    assert ours == _importlib(GROUP)
    assert fallbacks == [GROUP]


def test_lines_before_any_section_are_skipped_without_falling_back(site: Any):
    root, fallbacks = site
    text = f"stray = nowhere\n[{GROUP}]\nkept = m:f\n"
    _info(root / "pi_stray-1.dist-info", "Name: pi-stray\nVersion: 1\n", text)
    assert _read() == _importlib(GROUP) == [("kept", "m:f", "pi-stray", "1")]
    assert fallbacks == []


def test_a_found_entry_points_repr():
    found = scan.FoundEntryPoint("a", "m:f", "g", "dist", "1")
    assert repr(found) == "FoundEntryPoint(name='a', value='m:f', group='g', dist_name='dist')"


@pytest.mark.parametrize(
    ("metadata", "dist_name", "version", "falls_back"),
    [
        ("Name: pi-dup\nVersion: 1\nName: other\nVersion: 2\n", "pi-dup", "1", False),
        ("Name: pi-nover\n", "pi-nover", None, False),
        ("Version: 4\n", "", "4", False),
        ("name:\t  pi-low\nVERSION: 5\n", "pi-low", "5", False),
        ("Name: pi-body\nVersion: 6\n\nbody: not a header\n", "pi-body", "6", False),
        ("Name: pi-nobreak\nVersion: 7\nbody line\n", "pi-nobreak", "7", True),
        ("\tName: pi-indented\nVersion: 8\n", "", "8", True),
    ],
)
def test_name_and_version_headers_read_as_importlib_reads_them(
    site: Any, metadata: str, dist_name: str, version: str | None, falls_back: bool
):
    """First header of each name wins, any case, blanks after the colon dropped, body ignored."""
    root, fallbacks = site
    _info(root / "pi_hdr-1.dist-info", metadata, f"[{GROUP}]\nep = m:f\n")
    ours = _read()
    assert ours == _importlib(GROUP)
    assert ours == [("ep", "m:f", dist_name, version)]
    assert fallbacks == ([GROUP] if falls_back else [])
