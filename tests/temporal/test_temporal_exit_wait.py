"""The exit hook's wait: until no native thread runs Python, or exactly ``timeout_s``.

Every state of the wait, on a fake clock (``time.sleep`` advances it): nothing to wait for
(no sleep at all), a native thread that leaves after some polls (the wait ends then, True),
one that never leaves (the wait gives up after ``timeout_s`` of sleeping, not sooner and not
later, False), with a timeout above and below one second (a deadline must be "now +
timeout", whatever the clock's origin).
"""

from __future__ import annotations

import pytest
from pi_sdk_temporal import _exit


class Clock:
    def __init__(self, start: float) -> None:
        self.now = start
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds
        if self.slept > 60:  # far past any wait the hook may make: fail now, not in hours
            raise AssertionError(f"still waiting after {self.slept:.0f} s")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(start=12_345.0)
    monkeypatch.setattr(_exit.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(_exit.time, "sleep", fake.sleep)
    return fake


def native_threads(monkeypatch: pytest.MonkeyPatch, polls: int | None) -> None:
    """A native thread in Python for ``polls`` checks (``None``: for ever)."""
    seen = {"checks": 0}

    def found() -> set[int]:
        seen["checks"] += 1
        return {424242} if polls is None or seen["checks"] <= polls else set()

    monkeypatch.setattr(_exit, "native_threads_in_python", found)


def test_nothing_to_wait_for_returns_at_once(clock: Clock, monkeypatch: pytest.MonkeyPatch):
    native_threads(monkeypatch, 0)
    assert _exit.settle_native_threads(timeout_s=3.0) is True
    assert clock.slept == 0.0


@pytest.mark.parametrize("timeout_s", [0.5, 3.0])
def test_the_wait_ends_when_the_thread_leaves(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    native_threads(monkeypatch, 40)
    assert _exit.settle_native_threads(timeout_s=timeout_s) is True
    assert clock.slept == pytest.approx(40 * _exit._POLL_S)


@pytest.mark.parametrize("timeout_s", [0.5, 3.0, _exit.EXIT_WAIT_S])
def test_a_thread_that_stays_is_waited_for_exactly_the_timeout(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    native_threads(monkeypatch, None)
    assert _exit.settle_native_threads(timeout_s=timeout_s) is False
    assert clock.slept == pytest.approx(timeout_s, abs=2 * _exit._POLL_S)


def test_the_default_wait_is_the_documented_five_seconds(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
):
    native_threads(monkeypatch, None)
    assert _exit.settle_native_threads() is False
    assert clock.slept == pytest.approx(5.0, abs=2 * _exit._POLL_S)
