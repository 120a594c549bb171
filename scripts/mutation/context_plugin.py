"""pytest plugin for the coverage map's run (``coverage_map.py``; loaded with ``-p``).

* Before the first test, imports every module of the mutated packages, so code that runs at
  import lands in coverage's empty context (the map sends a mutant there to all its owners)
  rather than in the context of whichever test imported the module first.
* While a test runs, its node id is in ``PI_SDK_MUTATION_CONTEXT`` and ``child/`` is on
  ``PYTHONPATH``: a Python subprocess the test starts measures itself under that test's
  context (``child/sitecustomize.py``). A child given an environment of its own (``env=``,
  as the CLI tests do) gets those variables added to it (``subprocess.Popen``, and the
  ``os.exec*e`` calls that ``pexpect`` makes after forking).
* Records, per test, the fixtures it uses that outlive one test (module, class, package or
  session scope): what such a fixture runs in its first user's set-up serves every user.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from coverage_map import CONTEXT_ENV, DATA_ENV, RCFILE_ENV, SCOPES_PREFIX, source_dirs

CHILD = str(Path(__file__).resolve().parent / "child")
_scopes: dict[str, list[str]] = {}
_extra: dict[str, str] = {}
"""The variables a child of the running test gets (empty between tests)."""


def with_extra(env: Any) -> Any:
    """``env`` plus the running test's variables (``PYTHONPATH`` prefixed, not replaced)."""
    if env is None or not _extra:
        return env
    merged = {**env, **_extra}
    path = env.get("PYTHONPATH") if isinstance(env, dict) else None
    merged["PYTHONPATH"] = os.pathsep.join(filter(None, [CHILD, path]))
    return merged


def _patch_spawns() -> None:
    popen_init = subprocess.Popen.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if "env" in kwargs:
            kwargs["env"] = with_extra(kwargs["env"])
        popen_init(self, *args, **kwargs)

    subprocess.Popen.__init__ = init  # type: ignore[method-assign]
    for name in ("execve", "execvpe"):
        original = getattr(os, name)

        def execute(path: Any, args: Any, env: Any, _original: Any = original) -> None:
            _original(path, args, with_extra(env))

        setattr(os, name, execute)


def pytest_configure(config: pytest.Config) -> None:
    _patch_spawns()


def import_everything() -> None:
    """Import each module of the mutated packages (not ``__main__``); failures are skipped."""
    for folder in source_dirs():
        package = Path(folder).name
        try:
            root = importlib.import_module(package)
        except Exception:  # noqa: BLE001 - a package that cannot import has no map entries
            continue
        prefix = f"{package}."
        for info in pkgutil.walk_packages(root.__path__, prefix, onerror=lambda _: None):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except BaseException:  # noqa: BLE001 - an optional vendor SDK missing, a SystemExit
                continue


def pytest_collection_finish(session: pytest.Session) -> None:
    import_everything()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Generator[None]:
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    broad = [
        f"{d.baseid}::{name}"
        for name, chain in defs.items()
        for d in chain
        if d.scope != "function" and d.baseid  # the project's own, not pytest's
    ]
    if broad:
        _scopes[item.nodeid] = sorted(set(broad))
    _extra.update({CONTEXT_ENV: item.nodeid, "PYTHONPATH": CHILD})
    _extra.update({k: os.environ[k] for k in (DATA_ENV, RCFILE_ENV) if k in os.environ})
    saved = {key: os.environ.get(key) for key in (CONTEXT_ENV, "PYTHONPATH")}
    os.environ[CONTEXT_ENV] = item.nodeid
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [CHILD, saved["PYTHONPATH"]]))
    try:
        yield
    finally:
        _extra.clear()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def pytest_sessionfinish(session: pytest.Session) -> None:
    data = os.environ.get(DATA_ENV)
    if data and _scopes:
        out = Path(data).with_name(f"{SCOPES_PREFIX}{os.getpid()}.json")
        out.write_text(json.dumps(_scopes))
