"""A mutant's cached bytecode never stands in for its source (scripts/mutation/bytecode.py).

The hazard, reproduced: a process caches the mutant's bytecode, the original comes back with
the same size and the same whole-second modification time, and Python imports the mutant.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "mutation"))

import bytecode  # noqa: E402
import run_tests  # noqa: E402

ORIGINAL = "VALUE = 1 != 2\n"
MUTANT = "VALUE = 1 == 2\n"  # the same size, as most mutants


def _value(folder: Path) -> str:
    """What a fresh interpreter that caches bytecode (no -B) imports from ``folder/mod.py``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = "import mod; print(mod.VALUE)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _mutant_cached_then_restored(folder: Path) -> Path:
    """cosmic-ray's step: the mutant in place, imported by a caching process, the original
    back within the same second (the same recorded time and size)."""
    source = folder / "mod.py"
    source.write_text(ORIGINAL)
    stamp = (1_700_000_000, 1_700_000_000)
    source.write_text(MUTANT)
    os.utime(source, stamp)
    assert _value(folder) == "False"  # the mutant, cached
    source.write_text(ORIGINAL)
    os.utime(source, stamp)
    return source


def test_the_hazard_is_real_a_restored_source_imports_the_mutants_cache(tmp_path: Path):
    _mutant_cached_then_restored(tmp_path)
    assert _value(tmp_path) == "False"  # the source says True


def test_forgetting_a_sources_cache_imports_the_source_again(tmp_path: Path):
    source = _mutant_cached_then_restored(tmp_path)
    (cached,) = bytecode.cached_files(source)
    (tmp_path / "__pycache__" / "other.cpython-311.pyc").write_bytes(b"kept")
    assert bytecode.forget([source]) == [cached]
    assert not cached.exists() and (tmp_path / "__pycache__" / "other.cpython-311.pyc").exists()
    assert _value(tmp_path) == "True"


def test_every_cached_variant_of_a_source_is_forgotten(tmp_path: Path):
    source = tmp_path / "mod.py"
    source.write_text(ORIGINAL)
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    names = ["mod.cpython-311.pyc", "mod.cpython-311.opt-1.pyc", "mod.cpython-312.pyc"]
    for name in [*names, "module.cpython-311.pyc", "mod_x.cpython-311.pyc"]:
        (cache / name).write_bytes(b"")
    assert sorted(p.name for p in bytecode.forget([str(source)])) == sorted(names)
    assert sorted(p.name for p in cache.iterdir()) == [
        "mod_x.cpython-311.pyc",
        "module.cpython-311.pyc",
    ]
    assert bytecode.forget([tmp_path / "gone.py"]) == []  # nothing cached: nothing to do


def test_refreshing_rewrites_every_cache_from_the_sources(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    source = _mutant_cached_then_restored(package)
    (package / "broken.py").write_text("def (:\n")
    assert bytecode.refresh([package]) is False  # one file does not compile
    assert _value(package) == "True"
    (package / "broken.py").unlink()
    assert bytecode.refresh([str(package)]) is True
    assert bytecode.cached_files(source)


def test_the_script_refreshes_every_package_cosmic_ray_mutates(tmp_path: Path):
    """``python scripts/mutation/bytecode.py`` (the nox session's step) rewrites a stale cache
    in each of the 15 packages of ``config.toml``, from the checkout it runs in."""
    import coverage_map

    assert coverage_map.source_dirs()[:2] == ["pi_sdk", "providers/anthropic/pi_sdk_anthropic"]
    assert len(coverage_map.source_dirs()) == 15
    script = ROOT / "scripts" / "mutation" / "bytecode.py"
    for folder in coverage_map.source_dirs():
        (tmp_path / folder).mkdir(parents=True)
    package = tmp_path / "pi_sdk"
    _mutant_cached_then_restored(package)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert _value(package) == "True"


def _mutated_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: object) -> Path:
    """``pi_sdk/mod.py`` mutated in the cwd, as ``git diff`` names it; ``run`` runs the tests.
    Returns the path of the file's cache."""
    source = tmp_path / "pi_sdk" / "mod.py"
    source.parent.mkdir()
    source.write_text(MUTANT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        run_tests.subprocess,
        "run",
        lambda *a, **k: subprocess.CompletedProcess(a, 0, stdout="pi_sdk/mod.py\n"),
    )
    monkeypatch.setattr(run_tests, "owners", lambda path: ["tests"])
    monkeypatch.setattr(run_tests.os.path, "exists", lambda path: True)
    monkeypatch.setattr(run_tests, "selected", lambda tests: (tests, "every owner"))
    monkeypatch.setattr(run_tests, "run_pytest", run)
    return source.parent / "__pycache__" / "mod.cpython-311.pyc"


def test_run_tests_forgets_the_mutated_files_cache_before_and_after_its_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A test's child that caches the mutant (its own environment) leaves no cache behind."""
    seen: list[bool] = []

    def pytest_run(tests: list[str], env: dict[str, str]) -> int:
        seen.append(stale.exists())
        stale.write_bytes(b"this mutant's cache, written by a test's child")
        return 1

    stale = _mutated_checkout(tmp_path, monkeypatch, pytest_run)
    stale.parent.mkdir()
    stale.write_bytes(b"an earlier mutant's cache")
    assert run_tests.main() == 1
    assert seen == [False]  # gone before the tests ran
    assert not stale.exists()  # and after


def test_run_tests_forgets_the_cache_even_when_its_tests_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def pytest_run(tests: list[str], env: dict[str, str]) -> int:
        stale.parent.mkdir(exist_ok=True)
        stale.write_bytes(b"cache")
        raise KeyboardInterrupt

    stale = _mutated_checkout(tmp_path, monkeypatch, pytest_run)
    with pytest.raises(KeyboardInterrupt):
        run_tests.main()
    assert not stale.exists()


def test_a_map_build_refreshes_every_cache_before_any_test_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import coverage_map

    order: list[str] = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        coverage_map.bytecode, "refresh", lambda folders: order.append(f"refresh {folders[0]}")
    )
    monkeypatch.setattr(coverage_map, "previous_map", lambda tree: None)
    monkeypatch.setattr(
        coverage_map, "run_suite", lambda tests, folder, workers: order.append("suite") or 0
    )
    monkeypatch.setattr(coverage_map, "read_data", lambda folder, root: ({}, {}))
    monkeypatch.setattr(coverage_map, "save", lambda found, out: None)
    coverage_map.build("0123456789ab")
    assert order == ["refresh pi_sdk", "suite"]
