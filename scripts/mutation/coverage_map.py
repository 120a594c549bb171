"""Which tests run each source line: the map behind ``run_tests.py``'s test selection.

Usage: ``python scripts/mutation/coverage_map.py [--if-missing]`` (``nox -s mutation`` calls
it; ``--if-missing`` keeps a map that is already there). Writes
``.mutation-coverage-<tree>.sqlite`` for the checkout's commit (its tree id, like the session's
``.mutation-init-<tree>.sqlite``), once per commit: the test suite is run once under
coverage.py with a dynamic context per test (pytest-cov's ``--cov-context=test``, two xdist
workers), and the data is turned into *file → line → the tests whose run executed it*. A
mutant on a line then runs only the owner tests that execute that line (the technique of
mutmut 3): seconds instead of minutes, with the same tests able to kill it.

What a per-test context cannot see is left to the whole owner set (``select`` returns
``None``): code run at import or collection (every measured module is imported before the
first test, so its import-time code is in the empty context), lines outside a function body
(module and class level, decorators, defaults), functions whose result outlives a test (a
``functools`` cache, a ``global``), lines no test ran in the process (code only a subprocess
runs, when the subprocess was not measured), and a file missing from the map. Python
subprocesses a test starts are measured under that test's context (``child/sitecustomize.py``,
put on their ``PYTHONPATH`` by ``context_plugin.py``). A line run by a broader-scoped fixture
(``scope="module"``/``"session"``) is credited to every test sharing that fixture.

When an older commit's map exists and only test modules changed since (a test added for a
survivor), the map is updated by running just those modules: the source it maps is the same
(changes outside ``pi_sdk/``, ``providers/``, ``plugins/`` and ``tests/`` do not count). An
update that pytest did not run through, or after which a changed module credits no line, is
thrown away for a whole build.
"""

from __future__ import annotations

import ast
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import closing
from functools import cache
from pathlib import Path

import bytecode

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "config.toml"
VERSION = 1
CONTEXT_ENV = "PI_SDK_MUTATION_CONTEXT"
"""The running test's node id, for the coverage of the Python subprocesses it starts."""
DATA_ENV = "PI_SDK_MUTATION_COVERAGE"
"""The coverage data file's base name; a subprocess writes ``<base>.<suffix>`` beside it."""
RCFILE_ENV = "PI_SDK_MUTATION_COVERAGERC"
COLD_CLI_ENV = "PI_SDK_TEST_COLD_CLI"
"""Set: the tests' `pi-sdk` runs start cold (tests/_support/warm_cli.py)."""
SCOPES_PREFIX = "scopes."
"""The plugin's record of broader-scoped fixtures per test (``scopes.<pid>.json``)."""
PHASES = {"setup", "run", "teardown"}
"""pytest-cov's suffixes to a test's context (``<node id>|run``)."""
CACHES = {"cache", "lru_cache", "cached_property", "cached"}
"""Decorators that keep a function's result past the test that first ran it."""


def source_dirs() -> list[str]:
    """The packages cosmic-ray mutates (``config.toml``'s ``module-path``)."""
    return list(tomllib.loads(CONFIG.read_text())["cosmic-ray"]["module-path"])


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def tree_id() -> str:
    """The id of the commit's tree (a mutated file is not committed, so it does not count)."""
    return git("rev-parse", "HEAD^{tree}").strip()


def map_path(tree: str) -> Path:
    return Path(f".mutation-coverage-{tree[:12]}.sqlite")


# --- Storing --------------------------------------------------------------------------------
# One SQLite file: a mutant reads the test list and its one file's row, not the whole map
# (hundreds of megabytes as JSON for the full suite). Lines name tests by index.


def save(found: dict, out: Path) -> None:
    """Write a map (``version``, ``tree``, ``status``, ``files``, ``scopes``) to ``out``."""
    contexts = sorted({c for lines in found["files"].values() for cs in lines.values() for c in cs})
    index = {c: i for i, c in enumerate(contexts)}
    new = out.with_name(out.name + ".new")
    new.unlink(missing_ok=True)
    with closing(sqlite3.connect(new)) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE files (path TEXT PRIMARY KEY, lines TEXT)")
        meta = {k: v for k, v in found.items() if k != "files"}
        meta["contexts"] = contexts
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
        )
        db.executemany(
            "INSERT INTO files VALUES (?, ?)",
            [
                (path, json.dumps({n: [index[c] for c in cs] for n, cs in lines.items()}))
                for path, lines in found["files"].items()
            ],
        )
        db.commit()
    os.replace(new, out)


class _Files(Mapping[str, dict[str, list[str]]]):
    """A map's ``files``, read one file at a time."""

    def __init__(self, db: sqlite3.Connection, contexts: list[str]) -> None:
        self._db, self._contexts = db, contexts

    def __getitem__(self, path: str) -> dict[str, list[str]]:
        row = self._db.execute("SELECT lines FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            raise KeyError(path)
        return {n: [self._contexts[i] for i in cs] for n, cs in json.loads(row[0]).items()}

    def __iter__(self) -> Iterator[str]:
        return iter([r[0] for r in self._db.execute("SELECT path FROM files")])

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM files").fetchone()[0]


def read_map(path: Path, *, whole: bool = False) -> dict:
    """The map in ``path`` (``files`` read lazily unless ``whole``). Raises on a bad file."""
    if not path.exists():
        raise FileNotFoundError(path)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    meta = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
    files = _Files(db, meta.pop("contexts"))
    meta["files"] = {p: files[p] for p in files} if whole else files
    return meta


# --- Building -------------------------------------------------------------------------------


def _rcfile(folder: Path, data: Path) -> Path:
    rc = folder / "coveragerc"
    sources = "\n    ".join(str(Path(s).resolve()) for s in source_dirs())
    rc.write_text(
        f"[run]\nsource =\n    {sources}\ndata_file = {data}\nbranch = False\nsigterm = True\n"
        # A child that imports nothing measured must not say so on a stderr a test reads.
        "disable_warnings = no-data-collected, module-not-measured, module-not-imported\n"
    )
    return rc


def run_suite(tests: list[str], folder: Path, workers: int = 2) -> int:
    """Run ``tests`` under coverage with per-test contexts; data and scopes go to ``folder``."""
    data = folder / ".coverage"
    rc = _rcfile(folder, data)
    env = {
        **os.environ,
        DATA_ENV: str(data),
        RCFILE_ENV: str(rc),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
        "PYTHONDONTWRITEBYTECODE": "1",
        # Each `pi-sdk` run a fresh process measured under its own test's context: a warm fork
        # server's children would credit their lines to the test that started the server.
        COLD_CLI_ENV: "1",
    }
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "context_plugin",
        f"--cov-config={rc}", "--cov", "--cov-context=test", "--cov-report=",
        # Coverage slows the tests; a test cut short by its own limit loses its lines.
        "--timeout=900",
        # Through pytest-xdist even for one worker: run in-process, pytest-cov records no test
        # contexts (every line lands in the empty context), and an update would credit nothing.
        "-n", str(workers),
        *tests,
    ]  # fmt: skip
    return subprocess.run(command, env=env, check=False).returncode


def read_data(folder: Path, root: Path) -> tuple[dict[str, dict[str, list[str]]], dict]:
    """``file -> line -> contexts`` from every data file in ``folder``, and the scopes record."""
    from coverage import CoverageData

    files: dict[str, dict[str, set[str]]] = {}
    for name in sorted(glob.glob(str(folder / ".coverage*"))):
        data = CoverageData(basename=name)
        data.read()
        for measured in data.measured_files():
            relative = os.path.relpath(measured, root)
            if relative.startswith(".."):
                continue
            lines = files.setdefault(relative, {})
            for line, contexts in data.contexts_by_lineno(measured).items():
                lines.setdefault(str(line), set()).update(contexts)
    scopes: dict[str, list[str]] = {}
    for name in glob.glob(str(folder / f"{SCOPES_PREFIX}*.json")):
        for test, fixtures in json.loads(Path(name).read_text()).items():
            scopes[test] = sorted(set(scopes.get(test, [])) | set(fixtures))
    plain = {f: {n: sorted(c) for n, c in lines.items()} for f, lines in files.items()}
    return plain, scopes


def test_file(context: str) -> str:
    """The test module of a context (``tests/x/test_y.py::test_z|run`` -> the module path)."""
    return context.split("::", 1)[0]


def merge(old: dict, files: dict, scopes: dict, rerun: set[str]) -> dict:
    """``old`` with the contexts of the test modules in ``rerun`` replaced by the new data."""
    merged: dict[str, dict[str, list[str]]] = {}
    for path, lines in old["files"].items():
        for line, contexts in lines.items():
            kept = [c for c in contexts if not c or test_file(c) not in rerun]
            if kept:
                merged.setdefault(path, {})[line] = kept
    for path, lines in files.items():
        for line, contexts in lines.items():
            new = [c for c in contexts if c and test_file(c) in rerun]
            if new:
                here = merged.setdefault(path, {})
                here[line] = sorted(set(here.get(line, [])) | set(new))
    kept_scopes = {t: s for t, s in old["scopes"].items() if test_file(t) not in rerun}
    return {**old, "files": merged, "scopes": {**kept_scopes, **scopes}}


MAPPED = ("pi_sdk/", "providers/", "plugins/", "tests/")
"""What the map depends on: the source and the tests (docs, scripts and settings do not)."""


def is_test_module(path: str) -> bool:
    return path.startswith("tests/") and Path(path).name.startswith("test_")


def still_valid(path: str) -> bool:
    """Whether a change to ``path`` leaves the rest of an older map true."""
    return is_test_module(path) or not path.startswith(MAPPED)


def previous_map(tree: str) -> tuple[dict, list[str]] | None:
    """An older map whose source is this tree's, and the test modules changed since."""
    for name in sorted(glob.glob(".mutation-coverage-*.sqlite"), key=os.path.getmtime)[::-1]:
        try:
            old = read_map(Path(name), whole=True)
            changed = git("diff-tree", "-r", "--name-only", old["tree"], tree).split()
        except (OSError, ValueError, KeyError, sqlite3.Error, subprocess.CalledProcessError):
            continue
        if old.get("version") == VERSION and all(still_valid(p) for p in changed):
            return old, [p for p in changed if is_test_module(p)]
    return None


PYTEST_RAN = {0, 1}
"""pytest's exit statuses after a whole run (all passed; some failed). Any other status
(interrupted, internal error, usage error, nothing collected) leaves data missing."""


def modules_without_contexts(found: dict, modules: list[str]) -> list[str]:
    """The test modules in ``modules`` that no line of ``found`` credits to any of its tests."""
    seen = {test_file(c) for lines in found["files"].values() for cs in lines.values() for c in cs}
    return [m for m in modules if m not in seen]


def _update(old: dict, changed: list[str], root: Path) -> dict | None:
    """``old`` with the changed test modules rerun, or ``None`` when the rerun left data out
    (pytest did not run them through, or a module that is there credits no line)."""
    present = [p for p in changed if Path(p).exists()]
    print(f"coverage map: updating {len(changed)} test modules", flush=True)
    if not present:
        return {**merge(old, {}, {}, set(changed)), "status": 0}
    with tempfile.TemporaryDirectory() as tmp:
        status = run_suite(present, Path(tmp), workers=1)
        files, scopes = read_data(Path(tmp), root)
    result = {**merge(old, files, scopes, set(changed)), "status": status}
    missing = modules_without_contexts(result, present)
    if status in PYTEST_RAN and not missing:
        return result
    why = f"pytest exit {status}" if status not in PYTEST_RAN else f"no lines from {missing}"
    print(f"coverage map: the update left data out ({why}); building it whole", flush=True)
    return None


def build(tree: str, workers: int = 2) -> Path:
    """Write the map of this commit (updating an older one when only test modules changed).

    An update that leaves data out falls back to a whole build: a mutant whose killers are
    missing from the map would otherwise run without them and survive falsely.
    """
    root = Path.cwd()
    out = map_path(tree)
    bytecode.refresh(source_dirs())  # no mutant's cached bytecode stands in for a source
    earlier = previous_map(tree)
    result = _update(*earlier, root) if earlier is not None else None
    if result is None:
        with tempfile.TemporaryDirectory() as tmp:
            status = run_suite(["tests"], Path(tmp), workers=workers)
            files, scopes = read_data(Path(tmp), root)
        result = {"version": VERSION, "files": files, "scopes": scopes, "status": status}
    result["tree"] = tree
    save(result, out)
    print(f"coverage map: {out} ({len(result['files'])} files; pytest exit {result['status']})")
    return out


# --- Selecting ------------------------------------------------------------------------------


def changed_lines(diff: str) -> dict[str, set[int]]:
    """``git diff -U0`` -> each file's changed lines, numbered as in the committed file."""
    found: dict[str, set[int]] = {}
    path = None
    for line in diff.splitlines():
        if line.startswith("--- "):
            name = line[4:].strip()
            path = name[2:] if name.startswith("a/") else None
        elif line.startswith("@@") and path is not None:
            old = line.split()[1][1:]  # "-12,3" -> "12,3"
            start, _, count = old.partition(",")
            first, size = int(start), int(count) if count else 1
            lines = range(first, first + size) if size else range(first, first + 2)
            found.setdefault(path, set()).update(lines)
    return found


def _tree(path: str) -> ast.Module:
    """The syntax tree of ``path`` as committed (the working copy holds the mutant, which
    may not even parse); the file itself outside a repository."""
    return _parse(str(Path(path).resolve()))


@cache
def _parse(path: str) -> ast.Module:
    folder, name = os.path.split(path)
    shown = subprocess.run(
        ["git", "-C", folder, "show", f"HEAD:./{name}"], capture_output=True, check=False
    )
    text = shown.stdout if shown.returncode == 0 else Path(path).read_bytes()
    return ast.parse(text)


def _spans(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]


def statement_lines(path: str, line: int) -> range | None:
    """The lines coverage may record for a change on ``line``: its statement's own lines (a
    compound statement's header), or ``None`` when the line is not in a function body, or is
    in a function whose effects outlive a test (a cache decorator, a ``global``)."""
    stack: list[ast.stmt] = []
    node: ast.AST = _tree(path)
    in_body = False
    while True:
        inner, field = None, ""
        for name, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.stmt) and _spans(child)[0] <= line <= _spans(child)[1]:
                    inner, field = child, name
        if inner is None:
            break
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_body = field == "body"
        stack.append(inner)
        node = inner
    if not stack or not in_body:
        return None
    last = stack[-1]
    if isinstance(last, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None  # a nested definition's header: its decorators and defaults
    for outer in stack:
        if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        decorators = [d.func if isinstance(d, ast.Call) else d for d in outer.decorator_list]
        if any(_name(d) in CACHES for d in decorators):
            return None
        if any(isinstance(s, ast.Global) for s in ast.walk(outer)):
            return None
    return own_lines(last)


def own_lines(statement: ast.stmt) -> range:
    """The lines of ``statement`` itself: all of a simple one, a compound one's header only."""
    first, end = _spans(statement)
    nested = [
        _spans(child)[0]
        for child in ast.iter_child_nodes(statement)
        if isinstance(child, ast.stmt) and _spans(child)[0] > first
    ]
    return range(first, min([end + 1, *nested]))


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def node_id(context: str) -> str:
    """The pytest node id of a context: without the phase (``|run``) and without the
    ``@group`` that xdist's ``--dist loadgroup`` appends (``...::test_x@temporal``)."""
    node, _, phase = context.rpartition("|")
    if phase not in PHASES:
        node = context
    return re.sub(r"(?<=[\w\]])@[\w.-]+$", "", node)


def _under(test: str, owner: str) -> bool:
    owner = owner.rstrip("/")
    return test == owner or test.startswith(owner + "/")


def select(coverage: dict, changed: dict[str, set[int]], owners: list[str]) -> list[str] | None:
    """The owner tests that ran the changed lines, in owner order, or ``None`` for all owners.

    ``coverage`` is a map from :func:`build`; ``changed`` is :func:`changed_lines`' result;
    ``owners`` the owner set (files or folders) of ``run_tests.py``.
    """
    contexts: set[str] = set()
    for path, lines in changed.items():
        measured = coverage["files"].get(path)
        if measured is None:
            return None  # a file the map does not know
        for line in lines:
            span = statement_lines(path, line)
            if span is None:
                return None
            here = {c for n in span for c in measured.get(str(n), [])}
            if not here or "" in here:
                return None  # no test ran it in-process, or it ran at import/collection
            contexts.update(here)
    tests = {node_id(c) for c in contexts}
    broad = {node_id(c) for c in contexts if not c.endswith("|run")}
    scopes = {node_id(t): set(fs) for t, fs in coverage["scopes"].items()}
    shared = {f for t in broad for f in scopes.get(t, ())}
    if shared:
        tests |= {t for t, fs in scopes.items() if shared & fs}
    chosen: dict[str, None] = {}
    for owner in owners:
        chosen.update(dict.fromkeys(sorted(t for t in tests if _under(test_file(t), owner))))
    return list(chosen) or None


def load(tree: str) -> dict | None:
    """This commit's map, or ``None`` when it is missing or unreadable."""
    try:
        found = read_map(map_path(tree))
    except (OSError, ValueError, KeyError, sqlite3.Error):
        return None
    if not isinstance(found, dict) or found.get("version") != VERSION:
        return None
    return found


def main(argv: list[str]) -> None:
    tree = tree_id()
    if "--if-missing" in argv and load(tree) is not None:
        print(f"coverage map: {map_path(tree)} is there")
        return
    build(tree)


if __name__ == "__main__":
    main(sys.argv[1:])
