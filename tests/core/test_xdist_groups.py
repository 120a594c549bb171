"""``--dist loadgroup`` keeps an ``xdist_group`` on one worker (tests/_support/xdist_groups.py).

On pytest 9.2 with xdist 3.8 the group was lost on the way to the scheduler (pytest-xdist#1386):
the Temporal tests ran on both workers, each starting its own dev server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

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


class _Config:
    """What the scheduler reads of the controller's config: ``-n 2 --dist loadgroup``."""

    def __init__(self) -> None:
        self.stash = pytest.Stash()
        self.option = SimpleNamespace(loadscopereorder=True)

    def getvalue(self, name: str) -> Any:
        return {"dist": "loadgroup", "tx": ["2*popen"]}[name]


class _Node:
    """A worker as the scheduler sees it: it is sent indexes into its collection."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.queue: list[int] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.queue.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_the_scheduler_runs_every_test_once_and_keeps_only_unfinished_units() -> None:
    """xdist's scheduler, with finished units dropped from a node's assigned work and the
    collection indexed once (tests/_support/xdist_groups.py): every test is sent once, a group's
    tests to one worker, and the run ends when the last test does."""
    from _support import xdist_groups

    config = _Config()
    collection = [f"tests/test_a.py::test_free[{n}]" for n in range(7)]
    grouped = [f"tests/test_b.py::test_grouped[{n}]" for n in range(3)]
    collection[2:2] = grouped  # a group in the middle of the collection
    groups_file = xdist_groups._folder(config) / "gw0.json"  # pyright: ignore[reportPrivateUsage]
    groups_file.write_text(json.dumps(dict.fromkeys(grouped, "shared")), encoding="utf-8")
    scheduler = xdist_groups.pytest_xdist_make_scheduler(config, None)
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    ran: dict[str, str] = {}
    while any(node.queue for node in nodes):
        for node in nodes:
            if node.queue:
                index = node.queue.pop(0)
                assert collection[index] not in ran, "a test was sent twice"
                ran[collection[index]] = node.name
                scheduler.mark_test_complete(node, index)
                for unit in scheduler.assigned_work[node].values():
                    assert not all(unit.values()), "a finished unit is still assigned"
    assert sorted(ran) == sorted(collection)
    assert len({ran[nodeid] for nodeid in grouped}) == 1
    assert scheduler.tests_finished and not scheduler.has_pending
    assert all(node.shutting_down for node in nodes)
    xdist_groups.pytest_unconfigure(config)  # pyright: ignore[reportArgumentType]
