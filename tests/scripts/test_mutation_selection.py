"""The mutation run's test selection (scripts/mutation/coverage_map.py, run_tests.py).

A mutant runs only the owner tests whose coverage context executed its lines; anything the
per-test contexts cannot vouch for runs the whole owner set, as before the map: code run at
import or collection, lines outside a function body, functions whose effect outlives a test,
lines no owner test ran, files missing from the map, and a map that is missing or unreadable.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "mutation"))

import coverage_map  # noqa: E402
import run_tests  # noqa: E402

SOURCE = textwrap.dedent(
    '''\
    """A module."""
    import functools

    LIMIT = 3


    def total(items, start=0):
        value = start
        for item in items:
            value = value + (
                item
                * 2
            )
        return value


    class Box:
        size = 4

        @property
        def twice(self):
            return self.size * 2


    @functools.cache
    def table():
        return {"a": 1}


    _seen = None


    def remember(x):
        global _seen
        _seen = x
        return x
    '''
)
OWNERS = ["tests/unit", "tests/extra/test_more.py"]
A = "tests/unit/test_a.py::test_total"
B = "tests/unit/test_b.py::test_total_twice[1]"
C = "tests/extra/test_more.py::test_box"
OUTSIDE = "tests/elsewhere/test_x.py::test_total"


def line_of(text: str, nth: int = 0) -> int:
    """The 1-based line of the ``nth`` line of SOURCE holding ``text``."""
    found = [i for i, line in enumerate(SOURCE.splitlines(), 1) if text in line]
    return found[nth]


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    return "pkg/mod.py"


def a_map(**lines: list[str]) -> dict:
    """A coverage map of pkg/mod.py: ``L<n>=[contexts]``."""
    files = {"pkg/mod.py": {name[1:]: contexts for name, contexts in lines.items()}}
    return {"version": coverage_map.VERSION, "files": files, "scopes": {}}


def test_a_covered_line_picks_exactly_its_owner_tests_in_owner_order(source: str):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{C}|run", f"{B}|run", f"{A}|run", f"{OUTSIDE}|run"]})
    chosen = coverage_map.select(found, {source: {n}}, OWNERS)
    # A test outside the owner set does not count (docs/testing.md), and the owners'
    # order is kept: the mutated file's own tests first.
    assert chosen == [A, B, C]


def test_other_lines_contexts_are_not_borrowed(source: str):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|run"], f"L{n + 1}": [f"{B}|run"]})
    assert coverage_map.select(found, {source: {n}}, OWNERS) == [A]


def test_a_continuation_line_counts_its_whole_statement(source: str):
    # Coverage may record any line of a multi-line statement; "* 2" is never a line event.
    first, inner = line_of("value = value + ("), line_of("* 2")
    found = a_map(**{f"L{first}": [f"{A}|run"], f"L{first + 1}": [f"{B}|run"]})
    assert coverage_map.select(found, {source: {inner}}, OWNERS) == [A, B]


def test_a_compound_statement_header_is_its_own_lines_only(source: str):
    header = line_of("for item in items")
    body = line_of("value = value + (")
    found = a_map(**{f"L{header}": [f"{A}|run"], f"L{body}": [f"{B}|run"]})
    assert coverage_map.select(found, {source: {header}}, OWNERS) == [A]


def test_lines_run_at_import_or_collection_need_every_owner(source: str):
    n = line_of("value = start")
    assert coverage_map.select(a_map(**{f"L{n}": [""]}), {source: {n}}, OWNERS) is None
    both = a_map(**{f"L{n}": ["", f"{A}|run"]})
    assert coverage_map.select(both, {source: {n}}, OWNERS) is None


def test_a_line_no_test_ran_needs_every_owner(source: str):
    n = line_of("value = start")
    assert coverage_map.select(a_map(), {source: {n}}, OWNERS) is None
    assert coverage_map.select(a_map(**{f"L{n}": []}), {source: {n}}, OWNERS) is None


def test_a_line_only_other_tests_ran_needs_every_owner(source: str):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{OUTSIDE}|run"]})
    assert coverage_map.select(found, {source: {n}}, OWNERS) is None


@pytest.mark.parametrize(
    "text",
    [
        "LIMIT = 3",  # module level: runs at import
        "size = 4",  # class body
        "@property",  # a decorator
        "def total(items, start=0)",  # a default, evaluated at import
        '"""A module."""',
    ],
)
def test_lines_outside_a_function_body_need_every_owner(source: str, text: str):
    n = line_of(text)
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    assert coverage_map.statement_lines(source, n) is None
    assert coverage_map.select(found, {source: {n}}, OWNERS) is None


@pytest.mark.parametrize("text", ['return {"a": 1}', "_seen = x", "return x"])
def test_functions_whose_effect_outlives_a_test_need_every_owner(source: str, text: str):
    # A cached result or a global is made by the first test that runs the line and read by
    # later ones that never run it.
    n = line_of(text)
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    assert coverage_map.select(found, {source: {n}}, OWNERS) is None


def test_a_method_body_is_selectable(source: str):
    n = line_of("return self.size * 2")
    found = a_map(**{f"L{n}": [f"{C}|run"]})
    assert coverage_map.select(found, {source: {n}}, OWNERS) == [C]


def test_a_file_missing_from_the_map_needs_every_owner(source: str):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    assert coverage_map.select(found, {"pkg/other.py": {1}}, OWNERS) is None
    assert coverage_map.select(found, {source: {n}, "pkg/other.py": {1}}, OWNERS) is None


def test_every_changed_line_must_be_selectable(source: str):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    assert coverage_map.select(found, {source: {n, line_of("LIMIT = 3")}}, OWNERS) is None


def test_a_line_a_shared_fixture_ran_selects_every_test_sharing_it(source: str):
    # A module-scoped fixture runs in its first user's set-up; its later users rely on it.
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|setup"]})
    found["scopes"] = {
        A: ["tests/unit/test_a.py::server"],
        "tests/unit/test_a.py::test_later": ["tests/unit/test_a.py::server"],
        "tests/unit/test_a.py::test_unrelated": ["tests/unit/test_a.py::other"],
    }
    assert coverage_map.select(found, {source: {n}}, OWNERS) == [
        "tests/unit/test_a.py::test_later",
        A,
    ]
    # The same line run in the test's own call shares nothing.
    found["files"][source][str(n)] = [f"{A}|run"]
    assert coverage_map.select(found, {source: {n}}, OWNERS) == [A]


@pytest.mark.parametrize(
    ("context", "node"),
    [
        ("tests/t/test_a.py::test_x|run", "tests/t/test_a.py::test_x"),
        ("tests/t/test_a.py::test_x@temporal|setup", "tests/t/test_a.py::test_x"),
        ("tests/t/test_a.py::test_x[a-b]@wheels|run", "tests/t/test_a.py::test_x[a-b]"),
        ("tests/t/test_a.py::test_x[user@host]|run", "tests/t/test_a.py::test_x[user@host]"),
        ("tests/t/test_a.py::C::test_x[a|b]|run", "tests/t/test_a.py::C::test_x[a|b]"),
    ],
)
def test_a_context_names_the_test_pytest_can_run(context: str, node: str):
    # xdist's loadgroup appends "@group" to the node ids it runs; a plain run does not know it.
    assert coverage_map.node_id(context) == node


def test_changed_lines_are_numbered_as_in_the_committed_file():
    diff = textwrap.dedent(
        """\
        diff --git a/pkg/mod.py b/pkg/mod.py
        --- a/pkg/mod.py
        +++ b/pkg/mod.py
        @@ -8 +8 @@ def total(items, start=0):
        -    value = start
        +    value = not start
        @@ -20,2 +20,0 @@ class Box:
        -    @property
        -    def twice(self):
        @@ -30,0 +31 @@
        +    pass
        diff --git a/pkg/other.py b/pkg/other.py
        --- a/pkg/other.py
        +++ b/pkg/other.py
        @@ -3,2 +3,2 @@
        -a
        -b
        +c
        +d
        """
    )
    assert coverage_map.changed_lines(diff) == {
        "pkg/mod.py": {8, 20, 21, 30, 31},
        "pkg/other.py": {3, 4},
    }


def test_a_saved_map_reads_back_whole_and_one_file_at_a_time(tmp_path: Path):
    found = {
        "version": coverage_map.VERSION,
        "tree": "abc",
        "status": 0,
        "files": {"a.py": {"3": ["", f"{A}|run"]}, "b.py": {"1": [f"{B}|setup", f"{A}|run"]}},
        "scopes": {A: ["tests/unit/conftest.py::server"]},
    }
    coverage_map.save(found, tmp_path / "map.sqlite")
    assert coverage_map.read_map(tmp_path / "map.sqlite", whole=True) == found
    lazy = coverage_map.read_map(tmp_path / "map.sqlite")
    assert lazy["files"]["b.py"] == found["files"]["b.py"]
    assert lazy["files"].get("c.py") is None
    assert sorted(lazy["files"]) == ["a.py", "b.py"]


def test_an_updated_map_replaces_only_the_rerun_modules_contexts():
    old = {
        "version": coverage_map.VERSION,
        "tree": "t1",
        "files": {
            "pkg/mod.py": {"3": ["", f"{A}|run", f"{C}|run"], "4": [f"{A}|run"]},
            "pkg/gone.py": {"1": [f"{A}|run"]},
        },
        "scopes": {A: ["x"], C: ["y"]},
    }
    new_test = "tests/unit/test_a.py::test_new"
    files = {"pkg/mod.py": {"4": ["", f"{new_test}|run", f"{C}|run"], "5": [f"{A}|run"]}}
    merged = coverage_map.merge(old, files, {new_test: ["z"]}, {"tests/unit/test_a.py"})
    assert merged["files"] == {
        "pkg/mod.py": {"3": ["", f"{C}|run"], "4": [f"{new_test}|run"], "5": [f"{A}|run"]},
    }
    assert merged["scopes"] == {C: ["y"], new_test: ["z"]}


@pytest.mark.parametrize(
    ("path", "valid"),
    [
        ("tests/core/test_new.py", True),
        ("docs/testing.md", True),
        ("scripts/mutation/run_tests.py", True),
        ("tests/conftest.py", False),  # a fixture any test may use
        ("tests/_support/cli.py", False),
        ("tests/cassettes/x.yaml", False),
        ("pi_sdk/_stream/run.py", False),
        ("providers/openai/pi_sdk_openai/_x.py", False),
        ("plugins/otel/pi_sdk_otel/_x.py", False),
    ],
)
def test_an_older_map_stays_true_only_when_source_and_support_are_unchanged(path, valid):
    assert coverage_map.still_valid(path) is valid


# --- run_tests.py end to end, in a scratch repository ----------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with ``pi_sdk/mod.py`` committed, the cwd: a mutant is a change to it."""
    (tmp_path / "pi_sdk").mkdir()
    (tmp_path / "pi_sdk" / "mod.py").write_text(SOURCE)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(run_tests.NO_SELECTION, raising=False)
    return tmp_path


def mutate(repo: Path, old: str, new: str) -> None:
    path = repo / "pi_sdk" / "mod.py"
    path.write_text(path.read_text().replace(old, new, 1))


def write_map(repo: Path, found: dict | bytes) -> None:
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    if isinstance(found, bytes):
        coverage_map.map_path(tree).write_bytes(found)
    else:
        coverage_map.save(found, coverage_map.map_path(tree))


def test_run_tests_runs_the_covering_tests_of_a_mutant(repo: Path):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{B}|run", f"{A}|run"]})
    found["files"] = {"pi_sdk/mod.py": found["files"]["pkg/mod.py"]}
    write_map(repo, found)
    mutate(repo, "value = start", "value = not start")
    assert run_tests.selected(OWNERS) == ([A, B], "2 owner tests run the mutated lines")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "no coverage map for this commit"),
        (b"{not a database", "no coverage map for this commit"),
        ({"version": 0, "files": {}, "scopes": {}}, "no coverage map for this commit"),
        (  # no "scopes": reading the map fails halfway
            {
                "version": 1,
                "files": {"pi_sdk/mod.py": {str(line_of("value = start")): [f"{A}|run"]}},
            },
            "coverage map unusable (KeyError",
        ),
    ],
)
def test_run_tests_falls_back_to_the_owner_set_without_a_usable_map(
    repo: Path, content: dict | bytes | None, why: str
):
    if content is not None:
        write_map(repo, content)
    mutate(repo, "value = start", "value = not start")
    tests, reason = run_tests.selected(OWNERS)
    assert tests == OWNERS
    assert reason.startswith(why)


def test_the_committed_source_decides_not_the_mutant(repo: Path):
    # A mutant may not parse (cosmic-ray swaps the "*" of a signature) or may move lines:
    # the diff numbers lines as committed, and so must the syntax tree.
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    found["files"] = {"pi_sdk/mod.py": found["files"]["pkg/mod.py"]}
    write_map(repo, found)
    mutate(repo, "value = start", "value = (start")
    assert run_tests.selected(OWNERS) == ([A], "1 owner tests run the mutated lines")


def test_run_tests_falls_back_when_the_lines_need_every_owner(repo: Path):
    found = a_map(**{f"L{line_of('LIMIT = 3')}": [f"{A}|run"]})
    found["files"] = {"pi_sdk/mod.py": found["files"]["pkg/mod.py"]}
    write_map(repo, found)
    mutate(repo, "LIMIT = 3", "LIMIT = 4")
    assert run_tests.selected(OWNERS) == (OWNERS, "the mutated lines need the whole owner set")


def test_the_switch_runs_every_owner(repo: Path, monkeypatch: pytest.MonkeyPatch):
    n = line_of("value = start")
    found = a_map(**{f"L{n}": [f"{A}|run"]})
    found["files"] = {"pi_sdk/mod.py": found["files"]["pkg/mod.py"]}
    write_map(repo, found)
    mutate(repo, "value = start", "value = not start")
    monkeypatch.setenv(run_tests.NO_SELECTION, "1")
    assert run_tests.selected(OWNERS)[0] == OWNERS


def test_selected_tests_not_found_run_the_whole_owner_set(
    repo: Path, monkeypatch: pytest.MonkeyPatch
):
    # A node id the map recorded may be gone (a renamed parametrization): pytest says "not
    # found" (exit 4) or collects nothing (exit 5), and the owner set decides instead.
    calls: list[list[str]] = []
    statuses = iter([run_tests.NOT_FOUND, 1])
    monkeypatch.setattr(run_tests, "owners", lambda path: OWNERS)
    monkeypatch.setattr(run_tests.os.path, "exists", lambda path: True)
    monkeypatch.setattr(run_tests, "selected", lambda tests: ([A], "1 owner test"))
    monkeypatch.setattr(
        run_tests, "run_pytest", lambda tests, env: calls.append(tests) or next(statuses)
    )
    mutate(repo, "value = start", "value = not start")
    assert run_tests.main() == 1
    assert calls == [[A], OWNERS]


def test_a_child_given_its_own_environment_is_measured_too(monkeypatch: pytest.MonkeyPatch):
    import context_plugin

    monkeypatch.setattr(context_plugin, "_extra", {coverage_map.CONTEXT_ENV: A, "PYTHONPATH": "x"})
    env = context_plugin.with_extra({"HOME": "/h", "PYTHONPATH": "/p"})
    assert env == {
        "HOME": "/h",
        coverage_map.CONTEXT_ENV: A,
        "PYTHONPATH": f"{context_plugin.CHILD}:/p",
    }
    assert context_plugin.with_extra(None) is None  # inherits os.environ, already set
    monkeypatch.setattr(context_plugin, "_extra", {})
    assert context_plugin.with_extra({"HOME": "/h"}) == {"HOME": "/h"}  # between tests


# --- Updating an older map: only when the rerun left nothing out ------------------------------

OLD_TEST = "tests/unit/test_a.py::test_old"
NEW_TEST = "tests/unit/test_b.py::test_new"


@pytest.fixture
def older_map(repo: Path) -> str:
    """An older commit's map, then a commit adding one test module; the new tree's id."""
    write_map(
        repo,
        {
            "version": coverage_map.VERSION,
            "tree": git(repo, "rev-parse", "HEAD^{tree}").strip(),
            "status": 0,
            "files": {"pi_sdk/mod.py": {"9": [f"{OLD_TEST}|run"]}},
            "scopes": {},
        },
    )
    (repo / "tests" / "unit").mkdir(parents=True)
    (repo / "tests" / "unit" / "test_b.py").write_text("def test_new():\n    pass\n")
    git(repo, "add", "tests")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a test")
    return git(repo, "rev-parse", "HEAD^{tree}").strip()


def fake_runs(monkeypatch: pytest.MonkeyPatch, outcomes: list[tuple[int, dict]]) -> list[list[str]]:
    """``run_suite`` returning each ``(status, files)`` in turn; the test lists it was given."""
    runs: list[list[str]] = []

    def run_suite(tests: list[str], folder: Path, workers: int = 2) -> int:
        runs.append(tests)
        return outcomes[len(runs) - 1][0]

    monkeypatch.setattr(coverage_map, "run_suite", run_suite)
    monkeypatch.setattr(coverage_map, "read_data", lambda *_: (outcomes[len(runs) - 1][1], {}))
    return runs


WHOLE = {"pi_sdk/mod.py": {"9": [f"{OLD_TEST}|run"], "10": [f"{NEW_TEST}|run"]}}


@pytest.mark.parametrize("status", [0, 1])
def test_an_update_pytest_ran_through_keeps_the_older_map(
    older_map: str, monkeypatch: pytest.MonkeyPatch, status: int
):
    runs = fake_runs(monkeypatch, [(status, {"pi_sdk/mod.py": {"10": [f"{NEW_TEST}|run"]}})])
    found = coverage_map.read_map(coverage_map.build(older_map), whole=True)
    assert runs == [["tests/unit/test_b.py"]]
    assert found["files"] == WHOLE
    assert found["status"] == status


@pytest.mark.parametrize("status", [2, 3, 4, 5])  # interrupted, internal, usage, none collected
def test_an_update_pytest_did_not_run_through_becomes_a_whole_build(
    older_map: str, monkeypatch: pytest.MonkeyPatch, status: int
):
    runs = fake_runs(
        monkeypatch,
        [(status, {"pi_sdk/mod.py": {"10": [f"{NEW_TEST}|run"]}}), (0, WHOLE)],
    )
    found = coverage_map.read_map(coverage_map.build(older_map), whole=True)
    assert runs == [["tests/unit/test_b.py"], ["tests"]]
    assert (found["files"], found["status"]) == (WHOLE, 0)


def test_an_update_whose_new_module_credits_no_line_becomes_a_whole_build(
    older_map: str, monkeypatch: pytest.MonkeyPatch
):
    # The symptom seen at seed 20261208: a rerun module's tests missing from the map, so the
    # mutants they kill ran without them and survived.
    runs = fake_runs(monkeypatch, [(0, {"pi_sdk/mod.py": {"10": [""]}}), (1, WHOLE)])
    found = coverage_map.read_map(coverage_map.build(older_map), whole=True)
    assert runs == [["tests/unit/test_b.py"], ["tests"]]
    assert (found["files"], found["status"]) == (WHOLE, 1)


def test_a_test_stopped_by_its_time_limit_is_run_again_alone_with_five_times_the_limit(
    monkeypatch: pytest.MonkeyPatch,
):
    commands: list[list[str]] = []
    first = "FAILED tests/a/test_x.py::test_slow - Failed: Timeout (>60.0s) from pytest-timeout."

    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        status, out = (1, first) if len(commands) == 1 else (0, "1 passed")
        return subprocess.CompletedProcess(command, status, out, "")

    monkeypatch.setattr(run_tests.subprocess, "run", run)
    assert run_tests.run_pytest(["tests/a"], {}) == 0
    assert commands[1][-2:] == ["--timeout=300", "tests/a/test_x.py::test_slow"]
    assert "tests/a" not in commands[1]  # alone


def test_a_plain_failure_is_not_run_again(monkeypatch: pytest.MonkeyPatch):
    commands: list[list[str]] = []

    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 1, "FAILED tests/a/test_x.py::t - assert 1", "")

    monkeypatch.setattr(run_tests.subprocess, "run", run)
    assert run_tests.run_pytest(["tests/a"], {}) == 1
    assert len(commands) == 1


def test_the_map_runs_the_cli_cold_so_each_run_is_its_own_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # A warm fork server's children would be measured under the context of the test that
    # started the server, not of the test that ran the command.
    seen: list[dict[str, str]] = []

    def run(command: list[str], env: dict[str, str], check: bool) -> subprocess.CompletedProcess:
        seen.append(env)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(coverage_map.subprocess, "run", run)
    assert coverage_map.run_suite(["tests"], tmp_path) == 0
    assert seen[0]["PI_SDK_TEST_COLD_CLI"] == "1"


def test_an_update_runs_its_one_worker_through_xdist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # Run in-process (no -n), pytest-cov recorded no test contexts: every update of a map
    # credited no line to the rerun modules and fell back to a whole build.
    commands: list[list[str]] = []

    def run(command: list[str], env: dict[str, str], check: bool) -> subprocess.CompletedProcess:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(coverage_map.subprocess, "run", run)
    coverage_map.run_suite(["tests/x"], tmp_path, workers=1)
    at = commands[0].index("-n")
    assert commands[0][at + 1] == "1"


@pytest.mark.slow
def test_a_one_worker_run_credits_each_line_to_the_tests_that_ran_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(ROOT)
    module = "tests/core/test_usage_estimate_rules.py"
    assert coverage_map.run_suite([module], tmp_path, workers=1) == 0
    files, _ = coverage_map.read_data(tmp_path, ROOT)
    contexts = {c for lines in files.values() for cs in lines.values() for c in cs if c}
    assert contexts and {coverage_map.test_file(c) for c in contexts} == {module}
    estimate = files["pi_sdk/_stream/usage_estimate.py"]
    assert any(module in c for cs in estimate.values() for c in cs)
