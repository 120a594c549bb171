"""tune_gc_for_streams: start-up heap frozen, young generation enlarged, both undone on request."""

from __future__ import annotations

import gc
import weakref

import pytest

from pi_sdk import tune_gc_for_streams


@pytest.fixture(autouse=True)
def nothing_frozen():
    """A process with nothing frozen, as a user's is at start-up: the suite freezes what its
    collection built (tests/conftest.py), and freezes it again after each test here."""
    gc.unfreeze()
    yield
    gc.freeze()


class _Node:
    """A container that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_freezes_the_heap_sets_the_young_threshold_and_restores_both():
    before = gc.get_threshold()
    survivor = _Node()  # alive at start-up: frozen with the rest
    restore = tune_gc_for_streams(young=12_345)
    try:
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (12_345, *before[1:])
        assert gc.isenabled()
        assert not any(obj is survivor for obj in gc.get_objects())  # no generation holds it
    finally:
        restore()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
    assert any(obj is survivor for obj in gc.get_objects())


def test_cycles_made_after_tuning_are_still_collected():
    restore = tune_gc_for_streams()
    try:
        dead = _cycle()
        assert dead() is not None  # only the collector frees a cycle
        gc.collect()
        assert dead() is None
    finally:
        restore()


@pytest.mark.parametrize("young", [0, -700])
def test_a_young_threshold_below_one_is_refused_and_nothing_changes(young):
    before = gc.get_threshold()
    with pytest.raises(ValueError) as refused:
        tune_gc_for_streams(young=young)
    assert str(refused.value) == f"young must be >= 1, not {young}"
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_young_threshold_of_one_is_the_least_taken():
    before = gc.get_threshold()
    restore = tune_gc_for_streams(young=1)
    try:
        assert gc.get_threshold() == (1, *before[1:])
    finally:
        restore()
    assert gc.get_threshold() == before


@pytest.fixture
def older_thresholds():
    """The older generations' thresholds set apart from each other and from the defaults (10,
    10), so that keeping them is told apart from keeping either one twice."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], 11, 13)
    yield (11, 13)
    gc.set_threshold(*before)


def test_the_older_generations_keep_their_own_thresholds(older_thresholds):
    restore = tune_gc_for_streams(young=4_321)
    try:
        assert gc.get_threshold() == (4_321, *older_thresholds)
    finally:
        restore()
    assert gc.get_threshold()[1:] == older_thresholds


def test_by_default_the_young_generation_waits_for_50_000_allocations():
    before = gc.get_threshold()
    restore = tune_gc_for_streams()
    try:
        assert gc.get_threshold() == (50_000, *before[1:])
    finally:
        restore()
    assert gc.get_threshold() == before
