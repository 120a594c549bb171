"""Shared fixtures."""

import functools
import gc
import os
import sys

import pytest
from _support.xdist_groups import (  # noqa: F401 - hooks: xdist's groups on pytest 9.2
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
    write_groups,
)

from pi_sdk.plugins import PluginManager, use_plugin_manager


def _loopback_direct() -> None:
    """Behind a proxy (a CI machine reaching the package registry through one), the tests' own
    servers on 127.0.0.1 are still reached directly: every provider honours the proxy variables
    (docs/streaming.md, HTTP proxies), so the loopback hosts join ``NO_PROXY``."""
    names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
    if not any(os.environ.get(n) or os.environ.get(n.lower()) for n in names):
        return
    current = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    value = ",".join(p for p in (current, "127.0.0.1,localhost,::1") if p)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = value


_loopback_direct()


def pytest_configure(config: pytest.Config) -> None:
    """Bytecode caches on, whatever ``PYTHONDONTWRITEBYTECODE`` says: with it set, every run
    rewrites the assertions of every test module again, and every Python subprocess a test
    starts (the CLI, the workers, the docs' examples: hundreds) compiles pi-sdk's modules from
    source again. The caches go to the ``__pycache__`` folders, which git ignores."""
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    config.addinivalue_line(
        "markers",
        "cold_server: the test's MCP servers start cold, not forked warm (_support/mcp_servers.py)",
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (the test modules, the vendor SDKs they import, some 12,800 items:
    half a million objects) is frozen for the garbage collector (``gc.freeze``), as
    ``pi_sdk.tune_gc_for_streams`` does for a server's start-up heap: each full collection
    during the tests walked all of it again (about 30 per worker, 8 CPU seconds a worker).
    Objects the tests make are collected as before. tests/core/test_gc_tuning.py, which checks
    the freeze itself, starts from a process with nothing frozen (its own fixture)."""
    gc.collect()
    gc.freeze()


# --- the long scenarios and the tests that share a costly fixture ------------------------------
# `pytest` leaves the tests marked `slow` out (pyproject's addopts); `pytest -m slow` runs them
# (.ci/run runs both steps). Besides the tests marked in their files, these are slow: the
# conformance kit's truncation rule (each recorded body cut at every byte, one whole call per
# cut) and every test that builds the wheels (the `dist` fixture: `uv build --all-packages`).
# Under pytest-xdist (`-n`, `--dist loadgroup`) the tests sharing a fixture that starts something
# costly run on one worker, so that it starts once: the Temporal dev server (every test under
# tests/temporal), the wheels, and a test module's module-scoped fixture (pi's node processes);
# _support/xdist_groups.py makes xdist keep the groups on pytest 9.2.
_SLOW_KIT_RULES = frozenset({"test_truncation_at_every_byte_ends_in_one_error"})


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(defs and defs[-1].scope == "module" for defs in definitions.values())


@pytest.hookimpl(tryfirst=True)  # before the `-m` selection sees the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "dist" in fixtures:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("wheels"))
        elif getattr(item, "originalname", None) in _SLOW_KIT_RULES:
            item.add_marker(pytest.mark.slow)
        elif "temporal_address" in fixtures:
            item.add_marker(pytest.mark.xdist_group("temporal"))
        elif _uses_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    write_groups(config, items)  # on an xdist worker: for the controller's scheduler


@pytest.fixture
def plugin_manager():
    """A fresh, empty plugin manager, active for the test (installed plugins are not loaded).

    Register plugin objects with ``plugin_manager.register(obj, name=...)``; the registries
    fill from them on next access. The previous manager is restored afterwards.
    """
    with use_plugin_manager(PluginManager()) as pm:
        yield pm


# --- one summary line when the shared conformance folder (or node 22) is absent ------------------
# A standalone clone has no ../shared/conformance: every test that needs it skips, each with its
# own reason and line (and pytest adds "got empty parameter set" for the parametrized ones). The
# hooks below fold those skips into one line naming the folder and how to run them, and say it in
# the header too. PI_SDK_CONFORMANCE_DIR set to a missing folder is a failure (test_conformance).


@functools.cache
def _conformance_absent() -> str | None:
    """The one skip reason, or ``None`` when the folder is there (or required by the env var)."""
    from _support import conformance as conformance_check

    try:
        if conformance_check.conformance_dir() is not None:
            return None
    except conformance_check.ConformanceDirMissing:
        return None
    return (
        f"conformance cassettes not found at {conformance_check.DEFAULT_DIR}: the tests that"
        f" replay them are skipped (set {conformance_check.ENV_VAR} to a conformance folder to"
        " run them)"
    )


def _uses_conformance(item: pytest.Item, reason: str) -> bool:
    if "conformance" in reason.lower():
        return True
    module = getattr(item, "module", None)
    if module is None or "empty parameter set" not in reason:
        return False
    values = vars(module).values()
    return any(getattr(value, "__module__", None) == "_support.conformance" for value in values)


def pytest_report_header(config: pytest.Config) -> str | None:
    reason = _conformance_absent()
    return f"pi-sdk: {reason}" if reason else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = _conformance_absent()
        if reason and _uses_conformance(item, report.longrepr[2]):
            from _support import conformance as conformance_check

            # No line number: pytest folds equal (path, line, reason) skips into one line.
            report.longrepr = (conformance_check.__file__, None, reason)
        else:
            from _support import node22

            if report.longrepr[2].endswith(node22.SKIP_REASON):  # "Skipped: <reason>"
                # The pi 1.6 interop tests without node 22: one line too.
                report.longrepr = (node22.__file__, None, node22.SKIP_REASON)
    return report
