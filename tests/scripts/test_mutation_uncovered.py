"""scripts/mutation/uncovered.py: the statements no owner test runs, from a coverage map."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "mutation"))

import uncovered  # noqa: E402

SOURCE = textwrap.dedent(
    '''\
    """Module docstring."""
    from typing import TYPE_CHECKING

    LIMIT = 3


    def pick(items, key=None):
        """Function docstring: not a statement a mutant can change."""
        if TYPE_CHECKING:
            from collections.abc import Sequence
        found = [i for i in items if i]
        if key is None:
            return found
        return sorted(
            found,
            key=key,
        )


    class Box:
        size = 4

        def twice(self):
            return self.size * 2
    '''
)


def test_statements_are_those_of_function_bodies_without_docstrings_or_type_checking():
    # 8 is a docstring; 9-10, the TYPE_CHECKING block, never runs; 14's arguments (15-16)
    # are part of its statement; module and class level lines are the import's
    assert uncovered.function_statements(SOURCE) == {
        11: range(11, 12),
        12: range(12, 13),  # a compound statement: its header only
        13: range(13, 14),
        14: range(14, 18),
        24: range(24, 25),
    }


def test_a_statement_is_unowned_unless_an_owner_test_ran_it():
    owner = "tests/core/test_pick.py::test_sorted|run"
    other = "tests/plugins/test_x.py::test_y|run"
    lines = {
        "11": [owner],
        "12": ["", other],  # the empty context is import time: it vouches for nothing
        "13": [other],
        "24": [""],
    }
    found = uncovered.unowned(SOURCE, lines, ["tests/core", "tests/agent/test_a.py"])
    assert found == [(12, "other-tests"), (13, "other-tests"), (14, "never"), (24, "never")]
    # with the plugin tests among the owners, only the lines no test ran are left
    found = uncovered.unowned(SOURCE, lines, ["tests/core", "tests/plugins"])
    assert found == [(14, "never"), (24, "never")]


def test_a_statement_is_run_when_any_of_its_own_lines_is():
    # coverage records a multi-line call or condition on a later line of it: 14's run shows
    # on 16, and it counts for 14
    owner = "tests/core/test_pick.py::test_sorted|run"
    lines = {"11": [owner], "12": [owner], "13": [owner], "16": [owner], "24": [owner]}
    assert uncovered.unowned(SOURCE, lines, ["tests/core"]) == []


def test_a_compound_statements_body_does_not_vouch_for_its_header():
    source = "def f(x):\n    if (\n        x\n    ):\n        return 1\n"
    assert uncovered.function_statements(source) == {2: range(2, 5), 5: range(5, 6)}
    owner = "tests/core/test_f.py::t|run"
    assert uncovered.unowned(source, {"5": [owner]}, ["tests/core"]) == [(2, "never")]
    assert uncovered.unowned(source, {"3": [owner], "5": [owner]}, ["tests/core"]) == []
