"""A fake ``time.monotonic``/``time.sleep`` pair for the tests of timed waits.

``sleep`` moves the clock on; past ``limit`` seconds of sleeping it fails the test at once
(a wait that never ends would otherwise sleep for hours of fake time).
"""

from __future__ import annotations

from typing import Any


class SleepClock:
    def __init__(self, start: float, limit: float = 120.0) -> None:
        self.now = start
        self.slept = 0.0
        self.limit = limit

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds
        if self.slept > self.limit:
            raise AssertionError(f"still waiting after {self.slept:.0f} s")


def install(monkeypatch: Any, time_module: Any, start: float, limit: float = 120.0) -> SleepClock:
    """A :class:`SleepClock` in place of ``time_module``'s ``monotonic`` and ``sleep``."""
    fake = SleepClock(start, limit)
    monkeypatch.setattr(time_module, "monotonic", fake.monotonic)
    monkeypatch.setattr(time_module, "sleep", fake.sleep)
    return fake
