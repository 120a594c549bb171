"""Keep a random sample of a cosmic-ray session's mutants; mark the rest skipped.

Usage: ``python scripts/mutation/sample.py SESSION.sqlite --size 60 --seed 20261205
[--only PATH ...]``; ``--only`` keeps the mutants of the files under those paths (the files a
change touched: a contributor's check before calling the change done, docs/testing.md).

The sample is drawn by place, not by mutant: first a random set of distinct source lines,
then one random mutation operator at each, so the score speaks for as much of the code as
possible rather than for the lines with the most operators (an ``a + b`` line alone yields
eleven arithmetic swaps). The same seed on the same tree draws the same sample.

Mutants that cannot change behaviour are left out before drawing, by rule (each is an
equivalent mutant by construction): a function's parameter or return annotation in a module
with ``from __future__ import annotations`` (never evaluated), a variable annotation outside a
class body in such a module (likewise), and anything under ``if TYPE_CHECKING:`` (never run).
Class-level annotations stay in: pydantic and dataclasses evaluate them.
"""

from __future__ import annotations

import argparse
import ast
import random
from collections import defaultdict
from functools import cache

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkResult


@cache
def inert_lines(path: str) -> frozenset[int]:
    """Lines of ``path`` where a mutation cannot run (see the module docstring)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    lazy = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )
    spans: list[ast.AST] = []
    in_class = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for child in node.body
    }
    for node in ast.walk(tree):
        if lazy and isinstance(node, ast.AnnAssign) and id(node) not in in_class:
            spans.append(node.annotation)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            spans.append(node)
        elif lazy and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            spans += [a.annotation for a in every if a is not None and a.annotation is not None]
            if node.returns is not None:
                spans.append(node.returns)
    lines: set[int] = set()
    for span in spans:
        end = getattr(span, "end_lineno", None) or span.lineno  # type: ignore[attr-defined]
        lines.update(range(span.lineno, end + 1))  # type: ignore[attr-defined]
    return frozenset(lines)


def _under(path: str, prefix: str) -> bool:
    """Whether the mutated file ``path`` is ``prefix`` or inside the folder ``prefix``."""
    prefix = prefix.rstrip("/")
    return path == prefix or path.startswith(prefix + "/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session")
    parser.add_argument("--size", type=int, default=60, help="mutants to keep (default 60)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--only", nargs="*", default=[], help="files or folders to sample from")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with use_db(args.session, WorkDB.Mode.open) as db:
        by_place: dict[tuple[str, int], list[str]] = defaultdict(list)
        inert: list[str] = []
        for item in db.pending_work_items:
            (mutation,) = item.mutations
            place = (str(mutation.module_path), mutation.start_pos[0])
            if args.only and not any(_under(place[0], path) for path in args.only):
                inert.append(item.job_id)  # outside the files asked for: not drawn
            elif place[1] in inert_lines(place[0]):
                inert.append(item.job_id)
            else:
                by_place[place].append(item.job_id)
        places = sorted(by_place)
        drawn = rng.sample(places, min(args.size, len(places)))
        chosen = {rng.choice(sorted(by_place[p])) for p in drawn}
        skipped = inert + [job for jobs in by_place.values() for job in jobs if job not in chosen]
        db.set_multiple_results(
            skipped, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output="not in the sample")
        )
    print(
        f"sample: {len(chosen)} mutants at as many places, of {len(places)} places;"
        f" {len(inert)} mutants left out (annotations, TYPE_CHECKING"
        + (", outside --only)" if args.only else ")")
    )


if __name__ == "__main__":
    main()
