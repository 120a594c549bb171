"""The statements no owner test runs: certain survivors, listed per file, biggest first.

Usage: ``python scripts/mutation/uncovered.py [MAP]`` (default: this commit's coverage map,
``.mutation-coverage-<tree>.sqlite``, made by ``coverage_map.py``). A mutant on a statement
that none of its file's owner tests (``run_tests.owners``) executes survives whatever it
changes, so these lines are where a sample's score is lost for sure. Counted: statements in
function bodies (the ones the map can speak for), less docstrings and ``if TYPE_CHECKING:``
blocks. Each line is marked ``never`` (no test in the map ran it: dead code, code only an
unmeasured process runs, or a missing test) or ``other-tests`` (only tests outside the owner
set ran it: the behaviour is pinned nowhere the file's owners look).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import coverage_map
import run_tests


def function_statements(source: str) -> dict[int, range]:
    """Statements inside function bodies (no docstrings, no TYPE_CHECKING): each first line
    and the lines coverage may record for it (a compound statement's header only: coverage
    records a multi-line ``if (`` condition on the condition's own lines)."""
    found: dict[int, range] = {}

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            docstring = isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant)
            if in_function and isinstance(child, ast.stmt) and not docstring:
                found[child.lineno] = coverage_map.own_lines(child)
            inner = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, in_function or inner)

    visit(ast.parse(source), False)
    return found


def unowned(
    source: str, lines: Mapping[str, list[str]], owners: list[str]
) -> list[tuple[int, str]]:
    """``(line, "never" | "other-tests")`` for each statement no owner test ran."""
    out: list[tuple[int, str]] = []
    for number, own in sorted(function_statements(source).items()):
        contexts = [c for line in own for c in lines.get(str(line), []) if c]
        if any(coverage_map.test_file(c).startswith(tuple(owners)) for c in contexts):
            continue
        out.append((number, "other-tests" if contexts else "never"))
    return out


def report(found: dict) -> Iterator[str]:
    """The report's lines: the total, then each file with its unowned statements."""
    files: list[tuple[str, list[str], list[tuple[int, str]]]] = []
    total = 0
    for root in coverage_map.source_dirs():
        for path in sorted(Path(root).rglob("*.py")):
            name = path.as_posix()
            source = path.read_text(encoding="utf-8")
            try:
                lines = found["files"][name]
            except KeyError:
                lines = {}
            listed = unowned(source, lines, run_tests.owners(name))
            total += len(function_statements(source))
            if listed:
                files.append((name, source.splitlines(), listed))
    missing = sum(len(listed) for *_, listed in files)
    yield f"statements in function bodies: {total}; run by no owner test: {missing}"
    for name, source, listed in sorted(files, key=lambda f: -len(f[2])):
        yield f"\n{name}: {len(listed)}"
        for number, why in listed:
            yield f"{number:6d} {why:11s} {source[number - 1].strip()[:90]}"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else coverage_map.map_path(coverage_map.tree_id())
    for line in report(coverage_map.read_map(path)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
