"""Coverage for a Python subprocess started by a test of the coverage map's run.

``context_plugin.py`` puts this folder on ``PYTHONPATH`` while a test runs, with the test's
node id in ``PI_SDK_MUTATION_CONTEXT``: the subprocess measures the mutated packages under
that context and writes its own data file beside the run's (``coverage_map.py`` reads them
all). Outside that run (no variable set) it does nothing.
"""

import os

_context = os.environ.get("PI_SDK_MUTATION_CONTEXT")
_data = os.environ.get("PI_SDK_MUTATION_COVERAGE")
_rc = os.environ.get("PI_SDK_MUTATION_COVERAGERC")
if _context and _data and _rc:
    try:
        import coverage
    except ImportError:  # another interpreter (a fresh venv): not measured
        coverage = None
    if coverage is not None:
        _cov = coverage.Coverage(
            data_file=_data, data_suffix=True, config_file=_rc, context=f"{_context}|run",
            auto_data=True,
        )  # fmt: skip
        _cov.start()
