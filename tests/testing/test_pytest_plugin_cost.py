"""The pytest plugin stays out of the way of test suites that do not use it (issue 10, item 3).

It is registered through pi-sdk-pytest's ``pytest11`` entry point, so it loads in every pytest
run wherever pi-sdk-pytest is installed (issue 26: no longer wherever pi-sdk-core is). Until a
test carries ``@pytest.mark.pi_vcr`` or requests one of its fixtures, loading it must import
nothing but its own two modules: no pi-sdk code at all, no vcrpy, no YAML. Checked in fresh
interpreters through ``sys.modules`` (never by timing).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

LAZY_PACKAGES = ["pi_sdk_pytest", "pi_sdk_pytest.plugin"]
HEAVY = ("pi_sdk", "pi_sdk_pytest", "vcr", "yaml", "pydantic")

REPORTER = textwrap.dedent(
    """
    import json
    import sys

    def pytest_sessionfinish(session):
        loaded = sorted(
            m for m in sys.modules
            if m.split(".")[0] in ("pi_sdk", "pi_sdk_pytest", "vcr", "yaml", "pydantic")
        )
        with open("modules.json", "w") as out:
            json.dump(loaded, out)
    """
)


def _run_pytest(folder: Path, test_source: str, *args: str) -> list[str]:
    (folder / "conftest.py").write_text(REPORTER)
    (folder / "test_inner.py").write_text(textwrap.dedent(test_source))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, "test_inner.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((folder / "modules.json").read_text())


def test_importing_the_plugin_module_imports_no_pi_sdk_code_and_no_vcrpy():
    code = (
        "import sys, pytest\n"
        "import pi_sdk_pytest.plugin\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == repr(LAZY_PACKAGES)


def test_a_suite_without_the_marker_loads_only_the_plugin_module(tmp_path: Path):
    loaded = _run_pytest(tmp_path, "def test_plain():\n    assert 1 + 1 == 2\n")
    assert loaded == LAZY_PACKAGES


def test_the_plugin_options_and_marker_are_declared_without_loading_pi_sdk(tmp_path: Path):
    source = """
    import pytest

    @pytest.mark.pi_vcr
    def test_marked_but_deselected():
        raise AssertionError("not run")

    def test_plain(pytestconfig):
        assert pytestconfig.getoption("--pi-record") is False
    """
    loaded = _run_pytest(tmp_path, source, "--strict-markers", "-k", "plain")
    assert loaded == LAZY_PACKAGES


def test_a_marked_test_gets_its_cassette_and_loads_vcrpy(tmp_path: Path):
    source = """
    import pytest

    @pytest.mark.pi_vcr
    def test_marked(request):
        assert "pi_cassette" in request.fixturenames
        assert request.getfixturevalue("pi_cassette").recording is True
    """
    loaded = _run_pytest(tmp_path, source, "--pi-record")
    assert "vcr" in loaded
    assert "pi_sdk_pytest.cassette" in loaded
