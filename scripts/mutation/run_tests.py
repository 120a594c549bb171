"""Run the tests that own the file cosmic-ray has just mutated (``nox -s mutation``).

cosmic-ray rewrites one source file in place before each run; ``git diff`` names it. A
library file maps to the test folders that exercise it (its own area, plus the cross-API
provider suites for anything a provider's stream passes through); the run stops at the
first failure (``-x``), since one failing test kills the mutant. Exit status is pytest's. A
test that failed only by pytest-timeout's per-test limit (a busy machine) is run once more,
alone, with five times the limit (:data:`RERUN_TIMEOUT_S`), and that run decides.

A provider package's tests are its own folder first (the quickest kill), then every
cross-provider suite in ``tests/providers/`` (contract, conformance, malformed replies,
handoffs, ...), then the folders of the provider packages built on it (``pi-sdk-azure``
depends on ``pi-sdk-openai``: its tests run the OpenAI decoders too), then the decoder fuzz
suite (derandomized: the same examples every run, so a kill does not depend on a draw).

A plugin package (``plugins/<name>/``) is owned by its own tests: the modules
``tests/plugins/test_plugin_<name>*.py``, the folders ``tests/plugins/<name>`` and
``tests/<name>`` (``tests/temporal``), then the suites every plugin passes
(``tests/plugins/test_plugins.py``, the hook and discovery tests); ``pi-sdk-pytest`` by the
testing suites (:data:`PLUGIN_OWNERS`).

Of the owner set, only the tests that execute the mutated lines run, when the commit's
coverage map (``coverage_map.py``) can say which: ``git diff -U0`` gives the lines, the map
the tests whose context ran them. Whatever the map cannot vouch for runs the whole owner set
(code run at import, lines outside function bodies, no owner test on the line, no map or an
unreadable one, a selected test pytest no longer finds); ``PI_SDK_MUTATION_ALL_OWNERS=1``
always runs the whole set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import bytecode

# Mutated path prefix -> the tests that cover it; the first matching prefix wins. A folder
# that does not exist (yet) is left out of the command.
OWNERS: list[tuple[str, list[str]]] = [
    ("pi_sdk/_agent/", ["tests/agent", "tests/plugins/test_plugin_hooks_agent.py", "tests/core"]),
    ("pi_sdk/agent/", ["tests/agent", "tests/plugins"]),
    ("pi_sdk/_serve/", ["tests/proxy"]),
    ("pi_sdk/_cli/serve", ["tests/proxy", "tests/cli", "tests/core/test_cli.py"]),
    ("pi_sdk/_cli", ["tests/cli", "tests/core/test_cli.py"]),
    ("pi_sdk/_plugins/", ["tests/plugins", "tests/core"]),
    ("pi_sdk/plugins/", ["tests/plugins", "tests/core"]),
    (
        "pi_sdk/_testing/",
        [
            "tests/testing",
            "tests/test_migration.py",
            "tests/core/test_cli.py",  # `pi-sdk replay` plays cassettes through pi_sdk.testing
            "tests/providers/test_conformance.py",
        ],
    ),
    (
        "pi_sdk/_wire/transform.py",
        ["tests/core/test_transform.py", "tests/test_migration.py", "tests/providers"],
    ),
    # The agent is the core's main user: its tests pin core behaviour too (tool-argument
    # coercion in _wire/validation.py is tested through tools in tests/agent/test_tools.py).
    ("pi_sdk/", ["tests/core", "tests/providers", "tests/agent", "tests/fuzz"]),
]
FUZZ_DECODERS = "tests/fuzz/test_fuzz_decoders.py"
NO_SELECTION = "PI_SDK_MUTATION_ALL_OWNERS"
"""Set (to anything) to run the whole owner set for every mutant, as before the map."""
NOT_FOUND, NO_TESTS = 4, 5
"""pytest's exit statuses for a usage error (a node id not found) and for no tests collected."""
TEST_TIMEOUT = "Failed: Timeout (>"
"""pytest-timeout's failure text: the failing test is run once more, alone, with
:data:`RERUN_TIMEOUT_S`."""
RERUN_TIMEOUT_S = 300
"""Five times the project's per-test limit (60 s): a test alone that runs longer hangs,
however busy the machine (a real hang then costs 5 minutes, not cosmic-ray's 20)."""

PLUGIN_OWNERS: dict[str, list[str]] = {
    "pytest": ["tests/testing", "tests/test_migration.py"],
    "tool-policy": [
        "tests/plugins/test_plugin_tool_policy.py",
        "tests/plugins/mcp/test_mcp_policy.py",
    ],
}
"""Plugins whose tests do not follow the naming rule of :func:`plugin_tests` (listed first)."""
PLUGIN_SUITES = [
    "tests/plugins/test_plugins.py",
    "tests/plugins/test_plugin_hooks_agent.py",
    "tests/plugins/test_discovery_imports.py",
    "tests/plugins/test_env_setting.py",
]
"""Suites that load every plugin (entry points, hooks, settings): a plugin's last owners."""


def plugin_tests(name: str) -> list[str]:
    """The tests of the plugin package in ``plugins/<name>/``, its own first."""
    module = name.replace("-", "_")
    own = sorted(str(p) for p in Path("tests/plugins").glob(f"test_plugin_{module}*.py"))
    folders = [f"tests/plugins/{module}", f"tests/{module}"]
    return [*PLUGIN_OWNERS.get(name, []), *own, *folders, *PLUGIN_SUITES]


def cross_provider_tests() -> list[str]:
    """The suites in ``tests/providers/`` that run every provider (not one vendor's folder)."""
    return sorted(str(p) for p in Path("tests/providers").glob("test_*.py"))


def dependents(vendor: str) -> list[str]:
    """The provider packages whose ``pyproject.toml`` depends on ``pi-sdk-<vendor>``."""
    found = []
    for project in sorted(Path("providers").glob("*/pyproject.toml")):
        requires = tomllib.loads(project.read_text())["project"].get("dependencies", [])
        if any(r.split(">")[0].split("=")[0].strip() == f"pi-sdk-{vendor}" for r in requires):
            found.append(project.parent.name)
    return found


def owners(path: str) -> list[str]:
    """The test paths for one mutated file, the likeliest to fail first."""
    if path.startswith("plugins/"):
        return plugin_tests(path.split("/")[1])
    if path.startswith("providers/"):
        vendor = path.split("/")[1]
        built_on = [f"tests/providers/{other}" for other in dependents(vendor)]
        return [f"tests/providers/{vendor}", *cross_provider_tests(), *built_on, FUZZ_DECODERS]
    for prefix, tests in OWNERS:
        if path.startswith(prefix):
            return tests
    return ["tests"]


def selected(tests: list[str]) -> tuple[list[str], str]:
    """The owner tests that run the mutated lines (coverage map), or all of ``tests``."""
    if os.environ.get(NO_SELECTION):
        return tests, f"{NO_SELECTION} is set"
    try:
        import coverage_map

        found = coverage_map.load(coverage_map.tree_id())
        if found is None:
            return tests, "no coverage map for this commit"
        diff = subprocess.run(
            ["git", "diff", "-U0", "--", "pi_sdk", "providers", "plugins"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        chosen = coverage_map.select(found, coverage_map.changed_lines(diff), tests)
    except Exception as error:  # noqa: BLE001 - any trouble with the map: the whole owner set
        return tests, f"coverage map unusable ({type(error).__name__}: {error})"
    if chosen is None:
        return tests, "the mutated lines need the whole owner set"
    return chosen, f"{len(chosen)} owner tests run the mutated lines"


def pytest_command(tests: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]


def run_pytest(tests: list[str], env: dict[str, str]) -> int:
    """pytest on ``tests`` (``-x``); a test failed only by pytest-timeout is run once more."""
    command = pytest_command(tests)
    run = subprocess.run(command, env=env, check=False, capture_output=True, text=True)
    print(run.stdout, run.stderr, sep="\n")
    slow = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    if run.returncode == 1 and TEST_TIMEOUT in run.stdout and slow:
        # A test stopped by its own time limit on a busy machine says nothing of the mutant:
        # run it again alone with a limit no working test comes near (a hang fails it again).
        print(f"rerunning {slow} with a {RERUN_TIMEOUT_S} s limit", flush=True)
        again = [*pytest_command([]), f"--timeout={RERUN_TIMEOUT_S}", *slow]
        return subprocess.run(again, env=env, check=False).returncode
    return run.returncode


def main() -> int:
    changed = subprocess.run(
        ["git", "diff", "--name-only", "--", "pi_sdk", "providers", "plugins"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    tests = list(dict.fromkeys(t for path in changed for t in owners(path))) or ["tests"]
    tests = [t for t in tests if os.path.exists(t)]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    chosen, why = selected(tests)
    print(f"run_tests: {why}", flush=True)
    # The mutant is compiled from its text, and no cache of it outlives the run (bytecode.py).
    bytecode.forget(changed)
    try:
        status = run_pytest(chosen, env)
        if chosen != tests and status in (NOT_FOUND, NO_TESTS):
            # A node id the map recorded is gone (a renamed parametrization): the whole set.
            print("run_tests: selected tests not found; running the whole owner set", flush=True)
            status = run_pytest(tests, env)
    finally:
        bytecode.forget(changed)
    print(f"run_tests: {time.monotonic() - started:.1f} s, exit {status}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
