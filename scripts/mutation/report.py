"""Print a cosmic-ray session's mutation score and every surviving mutant with its diff.

Usage: ``python scripts/mutation/report.py SESSION.sqlite``. Mutants marked skipped (outside
the sample) do not count; an ``incompetent`` mutant (the mutated code fails to import or
compile) counts as killed, as cosmic-ray counts it. Exit status 0.
"""

from __future__ import annotations

import argparse

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session")
    args = parser.parse_args()
    killed = survived = errored = 0
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
                survived += 1
                (mutation,) = item.mutations
                where = f"{mutation.module_path}:{mutation.start_pos[0]}"
                print(f"SURVIVED {where} {mutation.operator_name}\n{result.diff}")
            else:
                killed += 1
        pending = sum(1 for _ in db.pending_work_items)
    tested = killed + survived
    score = 100 * killed / tested if tested else 0.0
    print(
        f"mutants tested: {tested}, killed: {killed}, survived: {survived},"
        f" errors: {errored}, pending: {pending}"
    )
    print(f"mutation score: {score:.1f}%")


if __name__ == "__main__":
    main()
