"""``scripts/mutation/equivalent.toml`` stays true to the code it speaks of.

``report.py`` leaves a survivor out of the score when its path, operator and changed source
match an entry. An entry whose file was removed, or whose line was rewritten, would excuse
nothing or, worse, a later mutant of a line that merely reads the same; an entry without its
table header (a merge that joined two) is a TOML error that stops every report. So each entry
names a file of the checkout, a line that is still in it, a change, and the argument.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "scripts" / "mutation" / "equivalent.toml"
ENTRIES = tomllib.loads(TABLE.read_text(encoding="utf-8"))["mutant"]


def test_the_table_parses_and_every_entry_has_its_five_keys() -> None:
    assert ENTRIES
    for entry in ENTRIES:
        assert set(entry) == {"path", "operator", "before", "after", "reason"}, entry
        assert entry["operator"].startswith("core/"), entry
        assert entry["before"] != entry["after"], entry
        assert len(entry["reason"]) >= 30, entry  # an argument, not a label


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e['path']}:{e['before'][:40]}")
def test_every_entry_speaks_of_a_line_still_in_its_file(entry: dict[str, str]) -> None:
    path = ROOT / entry["path"]
    assert path.is_file(), f"{entry['path']} is gone: remove its entry"
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    assert any(entry["before"] in line for line in lines), (
        f"{entry['path']} no longer has {entry['before']!r}: check the entry again or remove it"
    )
