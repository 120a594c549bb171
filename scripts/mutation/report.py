"""Print a cosmic-ray session's mutation score and every surviving mutant with its diff.

Usage: ``python scripts/mutation/report.py SESSION.sqlite``. Mutants marked skipped (outside
the sample) do not count; an ``incompetent`` mutant (the mutated code fails to import or
compile) counts as killed, as cosmic-ray counts it. A survivor listed in
``scripts/mutation/equivalent.toml`` (shown equivalent: no test can tell it from the original)
is printed with its reason and left out of the score. A timeout counts as a kill (cosmic-ray's
rule: the mutant hangs) and is listed: if the machine was merely slow, rerun that mutant with
``scripts/mutation/run_tests.py`` by hand; so is a kill by one test's own time limit
(pytest-timeout), which a busy machine can cause with no mutant at all. Exit status 0.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

EQUIVALENT = Path(__file__).with_name("equivalent.toml")
_TEST_TIMEOUT = "Failed: Timeout (>"
"""pytest-timeout's failure text: a kill that may be the machine's load, not the mutant."""


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added source of a mutant's diff, stripped (line numbers drop out)."""
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    removed = [line[1:].strip() for line in lines if line.startswith("-")]
    added = [line[1:].strip() for line in lines if line.startswith("+")]
    return " ".join(filter(None, removed)), " ".join(filter(None, added))


def equivalence(path: str, operator: str, diff: str, known: list[dict[str, str]]) -> str | None:
    """The reason a survivor is equivalent, when ``equivalent.toml`` lists it."""
    before, after = changed_lines(diff)
    for entry in known:
        same = (entry["path"], entry["operator"], entry["before"], entry["after"])
        if same == (path, operator, before, after):
            return entry["reason"]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session")
    args = parser.parse_args()
    known = tomllib.loads(EQUIVALENT.read_text())["mutant"] if EQUIVALENT.exists() else []
    killed = survived = errored = equivalent = timeouts = slow = 0
    pending = 0
    with use_db(args.session, WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.worker_outcome != WorkerOutcome.NORMAL:
                errored += 1
                print(f"ERROR {item.job_id}: {result.worker_outcome} {result.output or ''}"[:500])
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                (mutation,) = item.mutations
                where = f"{mutation.module_path}:{mutation.start_pos[0]}"
                path, operator = str(mutation.module_path), mutation.operator_name
                reason = equivalence(path, operator, result.diff or "", known)
                if reason is not None:
                    equivalent += 1
                    print(f"EQUIVALENT {where} {operator}: {reason}")
                    continue
                survived += 1
                print(f"SURVIVED {where} {operator}\n{result.diff}")
            else:
                killed += 1
                (mutation,) = item.mutations
                where = f"{mutation.module_path}:{mutation.start_pos[0]}"
                if result.output == "timeout":  # cosmic-ray counts a timeout as a kill
                    timeouts += 1
                    print(f"TIMEOUT {where} {mutation.operator_name} (counted killed)")
                elif _TEST_TIMEOUT in (result.output or ""):
                    slow += 1  # a busy machine can fail a test by its time limit alone
                    print(f"KILLED BY A TEST'S TIME LIMIT {where} {mutation.operator_name}")
        pending = sum(1 for _ in db.pending_work_items)
    tested = killed + survived
    score = 100 * killed / tested if tested else 0.0
    print(
        f"mutants tested: {tested + equivalent}, killed: {killed} ({timeouts} by timeout,"
        f" {slow} by a test's time limit: rerun those by hand),"
        f" survived: {survived},"
        f" equivalent: {equivalent} (not scored), errors: {errored}, pending: {pending}"
    )
    print(f"mutation score: {score:.1f}%")


if __name__ == "__main__":
    main()
