"""Keep a mutant's bytecode from outliving it: no test run reads the bytecode of another source.

Python trusts a cached ``__pycache__/*.pyc`` whose recorded source modification time (whole
seconds) and size match the source file. cosmic-ray writes a mutant into the file, runs the
tests, and writes the original back, often within the same second; most mutants keep the size
(``!=`` -> ``==``, ``1`` -> ``2``). A Python process the tests start with an environment of its
own (a CLI run, a worker) does not inherit ``PYTHONDONTWRITEBYTECODE`` and caches the mutant's
bytecode; once the original is back, that cache still looks valid, and every later run of the
session imports the mutant instead of the source: tests fail for a line nobody mutated, and
mutants are "killed" falsely (found in a map build whose fallback tests failed on unmutated
source, stop 44). So the mutated file's cache is removed before and after its tests run
(:func:`forget`, ``run_tests.py``), and every cache is rewritten from the sources as they are
before a session or a map build (:func:`refresh`).

Usage: ``python scripts/mutation/bytecode.py`` (refresh the packages cosmic-ray mutates).
"""

from __future__ import annotations

import compileall
import sys
from collections.abc import Iterable
from pathlib import Path


def cached_files(source: Path) -> list[Path]:
    """Every cached bytecode file of ``source`` (any interpreter, any optimization level)."""
    cache = source.parent / "__pycache__"
    return sorted(cache.glob(f"{source.stem}.*.pyc")) if cache.is_dir() else []


def forget(sources: Iterable[str | Path]) -> list[Path]:
    """Remove the cached bytecode of each of ``sources``; return the files removed."""
    removed: list[Path] = []
    for source in sources:
        for cached in cached_files(Path(source)):
            cached.unlink(missing_ok=True)
            removed.append(cached)
    return removed


def refresh(folders: Iterable[str | Path]) -> bool:
    """Rewrite the cached bytecode of every source under ``folders`` from its text now.

    Returns whether every file compiled (a syntax error leaves that file uncached).
    """
    ok = True
    for folder in folders:
        ok = compileall.compile_dir(str(folder), force=True, quiet=1) and ok
    return ok


if __name__ == "__main__":
    from coverage_map import source_dirs  # the packages cosmic-ray mutates (config.toml)

    sys.exit(0 if refresh(source_dirs()) else 1)
