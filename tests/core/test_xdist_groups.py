"""``--dist loadgroup`` keeps an ``xdist_group`` on one worker (tests/_support/xdist_groups.py).

On pytest 9.2 with xdist 3.8 the group was lost on the way to the scheduler (pytest-xdist#1386):
the Temporal tests ran on both workers, each starting its own dev server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("xdist")

SUPPORT = Path(__file__).parents[1]  # the folder holding _support

CONFTEST = """
from _support.xdist_groups import (
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
    write_groups,
)


def pytest_collection_modifyitems(config, items):
    write_groups(config, items)
"""

TESTS = """
import os

import pytest


@pytest.mark.parametrize("n", range(4))
@pytest.mark.xdist_group("shared")
def test_grouped(n, tmp_path_factory):
    with open(os.environ["WORKERS_LOG"], "a") as log:
        log.write(f"{os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.mark.parametrize("n", range(4))
def test_free(n):
    pass
"""


def test_the_tests_of_a_group_run_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts =\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST), encoding="utf-8")
    for name in ("test_a.py", "test_b.py"):  # one group across two modules
        (tmp_path / name).write_text(textwrap.dedent(TESTS), encoding="utf-8")
    log = tmp_path / "workers.log"
    path = os.pathsep.join(p for p in (str(SUPPORT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "WORKERS_LOG": str(log)}
    env.pop("PYTEST_ADDOPTS", None)
    command = ["-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, *command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workers = log.read_text(encoding="utf-8").split()
    assert len(workers) == 8
    assert len(set(workers)) == 1, workers
