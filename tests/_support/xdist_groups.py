"""pytest-xdist's ``--dist loadgroup`` groups, whatever the node ids say (a pytest plugin).

xdist 3.8 tells its scheduler a test's ``xdist_group`` by appending ``@group`` to the node id on
the worker, which pytest 9.2's structured node ids no longer take (pytest-xdist#1386): every test
was scheduled on its own, so a costly fixture shared by a group (the Temporal dev server, the
wheels) started on each worker. Here each worker writes the groups it collected to a file the
controller named (:func:`write_groups`, called at the end of collection), and the controller's
scheduler reads them. A node id that does carry its ``@group`` is grouped by xdist's own rule.

tests/conftest.py imports the hooks; tests/core/test_xdist_groups.py runs them on a small project.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "pytest_configure_node",
    "pytest_unconfigure",
    "pytest_xdist_make_scheduler",
    "write_groups",
]

_FILE_KEY = "pi_sdk_groups_file"
_DIR = pytest.StashKey[Path]()


def _group_of(item: pytest.Item) -> str | None:
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) or None


def write_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker: write ``{node id: group}`` of the grouped ``items`` (the controller's
    scheduler reads it)."""
    path = getattr(config, "workerinput", {}).get(_FILE_KEY)
    if path:
        groups = {item.nodeid: group for item in items if (group := _group_of(item))}
        Path(path).write_text(json.dumps(groups), encoding="utf-8")


def _folder(config: pytest.Config) -> Path:
    if _DIR not in config.stash:
        config.stash[_DIR] = Path(tempfile.mkdtemp(prefix="pi-sdk-xdist-groups-"))
    return config.stash[_DIR]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Controller: name each worker's groups file."""
    name = f"{node.workerinput['workerid']}.json"
    node.workerinput[_FILE_KEY] = str(_folder(node.config) / name)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Controller, ``--dist loadgroup``: xdist's scheduler, taking the groups from the files."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    folder = _folder(config)

    class Grouped(LoadGroupScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # every worker has collected (and written its file) by now
                self.groups = {}
                for path in sorted(folder.glob("*.json")):
                    self.groups.update(json.loads(path.read_text(encoding="utf-8")))
            return self.groups.get(nodeid) or super()._split_scope(nodeid)

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            # xdist's, but a finished unit leaves the node's assigned work: xdist counts a
            # node's pending tests over every unit it was ever given, once per finished test
            # and once per turn of the controller's loop, which is quadratic in the number of
            # units (every ungrouped test is one): 10 CPU seconds of 12,800 tests.
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            work = self.assigned_work[node]
            unit = work[scope]
            unit[nodeid] = True
            if all(unit.values()):
                del work[scope]
            self._reschedule(node)

        def _assign_work_unit(self, node: Any) -> None:
            # xdist's, with the node's collection indexed once instead of searched per test.
            scope, unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = unit
            index = indexes.get(node)
            if index is None:
                collection = self.registered_collections[node]
                index = indexes[node] = {nodeid: i for i, nodeid in enumerate(collection)}
            node.send_runtest_some([index[nodeid] for nodeid, done in unit.items() if not done])

    indexes: dict[Any, dict[str, int]] = {}
    return Grouped(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Controller: remove the groups files."""
    if _DIR in config.stash:
        shutil.rmtree(config.stash[_DIR], ignore_errors=True)
