"""What a compaction leaves is read-only; each Compactor is its own (issue 34).

A :class:`CompactionRecord` in ``history`` says what a compaction did: it refuses changes. A
:class:`Compactor` holds its own summary and history: two built with the same settings are two
compactors (not equal), and one can key a mapping (one per agent).
"""

from __future__ import annotations

import dataclasses

import pytest
from pi_sdk_compaction import CompactionRecord, CompactionSummary, Compactor

from pi_sdk.testing import ScriptedProvider


def test_a_compaction_record_refuses_every_change() -> None:
    summary = CompactionSummary(summary="## Goal\nRead.")
    fields = {
        "tokens_before": 900,
        "tokens_after": 100,
        "summarized": 6,
        "kept": 2,
        "forced": False,
        "summary": summary,
    }
    record = CompactionRecord(**fields)
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, None)
    assert {name: getattr(record, name) for name in fields} == fields
    assert record == CompactionRecord(*fields.values())


def test_each_compactor_is_its_own_and_can_key_a_mapping() -> None:
    model = ScriptedProvider().model
    first, second = Compactor(model), Compactor(model)
    assert first != second and first == first  # noqa: PLR0124 - identity is the equality
    per_agent = {first: "agent-1", second: "agent-2"}
    assert (per_agent[first], per_agent[second]) == ("agent-1", "agent-2")
    assert repr(first) == f"Compactor(summary_model={model.id!r}, compactions=0)"
