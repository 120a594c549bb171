"""The exit hook's wait: until no native thread runs Python, or exactly ``timeout_s``.

Every state of the wait, on a fake clock (``time.sleep`` advances it): nothing to wait for
(no sleep at all), a native thread that leaves after some polls (the wait ends then, True),
one that never leaves (the wait gives up after ``timeout_s`` of sleeping, not sooner and not
later, False), with a timeout above and below one second (a deadline must be "now +
timeout", whatever the clock's origin).
"""

from __future__ import annotations

import pytest
from _support.fake_clock import SleepClock, install
from pi_sdk_temporal import _exit


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SleepClock:
    return install(monkeypatch, _exit.time, 12_345.0, 60)


def native_threads(monkeypatch: pytest.MonkeyPatch, polls: int | None) -> None:
    """A native thread in Python for ``polls`` checks (``None``: for ever)."""
    seen = {"checks": 0}

    def found() -> set[int]:
        seen["checks"] += 1
        return {424242} if polls is None or seen["checks"] <= polls else set()

    monkeypatch.setattr(_exit, "native_threads_in_python", found)


def test_nothing_to_wait_for_returns_at_once(clock: SleepClock, monkeypatch: pytest.MonkeyPatch):
    native_threads(monkeypatch, 0)
    assert _exit.settle_native_threads(timeout_s=3.0) is True
    assert clock.slept == 0.0


@pytest.mark.parametrize("timeout_s", [0.5, 3.0])
def test_the_wait_ends_when_the_thread_leaves(
    clock: SleepClock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    native_threads(monkeypatch, 40)
    assert _exit.settle_native_threads(timeout_s=timeout_s) is True
    assert clock.slept == pytest.approx(40 * _exit._POLL_S)


@pytest.mark.parametrize("timeout_s", [0.5, 3.0, _exit.EXIT_WAIT_S])
def test_a_thread_that_stays_is_waited_for_exactly_the_timeout(
    clock: SleepClock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    native_threads(monkeypatch, None)
    assert _exit.settle_native_threads(timeout_s=timeout_s) is False
    assert clock.slept == pytest.approx(timeout_s, abs=2 * _exit._POLL_S)


def test_the_default_wait_is_the_documented_five_seconds(
    clock: SleepClock, monkeypatch: pytest.MonkeyPatch
):
    native_threads(monkeypatch, None)
    assert _exit.settle_native_threads() is False
    assert clock.slept == pytest.approx(5.0, abs=2 * _exit._POLL_S)
