"""``file_lock``'s wait for another holder, every state on a fake clock.

Free: taken at once, no sleep. Held, then let go after some polls: taken then. Held for
good: ``LockTimeout`` after exactly ``timeout_s`` of waiting (not sooner, not later; above
and below one second, so the deadline is "now + timeout" whatever the clock's origin), with
the whole message naming the file and the wait.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _support.fake_clock import SleepClock, install

from pi_sdk._cli import file_lock as lock_module


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SleepClock:
    return install(monkeypatch, lock_module.time, 9_876.0, 120)


def held_for(monkeypatch: pytest.MonkeyPatch, polls: int | None) -> list[int]:
    """Another holder for ``polls`` tries (``None``: for good); the tries made, counted."""
    tries: list[int] = []
    real = lock_module._try_lock

    def try_lock(descriptor: int) -> bool:
        tries.append(descriptor)
        if polls is None or len(tries) <= polls:
            return False
        return real(descriptor)

    monkeypatch.setattr(lock_module, "_try_lock", try_lock)
    return tries


def test_a_free_lock_is_taken_at_once(
    tmp_path: Path, clock: SleepClock, monkeypatch: pytest.MonkeyPatch
):
    tries = held_for(monkeypatch, 0)
    with lock_module.file_lock(tmp_path / "keys.lock", timeout_s=3.0):
        pass
    assert (len(tries), clock.slept) == (1, 0.0)


@pytest.mark.parametrize("timeout_s", [0.5, 3.0])
def test_the_lock_is_taken_when_the_holder_lets_go(
    tmp_path: Path, clock: SleepClock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    tries = held_for(monkeypatch, 7)
    entered = []
    with lock_module.file_lock(tmp_path / "keys.lock", timeout_s=timeout_s):
        entered.append(True)
    assert entered == [True] and len(tries) == 8
    assert clock.slept == pytest.approx(7 * lock_module._POLL_S)


@pytest.mark.parametrize("timeout_s", [0.5, 3.0, 10.0])
def test_a_lock_held_for_good_times_out_after_exactly_the_timeout(
    tmp_path: Path, clock: SleepClock, monkeypatch: pytest.MonkeyPatch, timeout_s: float
):
    held_for(monkeypatch, None)
    path = tmp_path / "keys.lock"
    with pytest.raises(lock_module.LockTimeout) as caught:
        with lock_module.file_lock(path, timeout_s=timeout_s):
            pytest.fail("entered a lock another process holds")
    assert clock.slept == pytest.approx(timeout_s, abs=2 * lock_module._POLL_S)
    assert str(caught.value) == (
        f"another process has held the lock {path} for {timeout_s:g} s;"
        " let it finish, then try again"
    )


def test_the_default_wait_is_ten_seconds(
    tmp_path: Path, clock: SleepClock, monkeypatch: pytest.MonkeyPatch
):
    held_for(monkeypatch, None)
    with pytest.raises(lock_module.LockTimeout, match=r"for 10 s;"):
        with lock_module.file_lock(tmp_path / "keys.lock"):
            pass
    assert clock.slept == pytest.approx(10.0, abs=2 * lock_module._POLL_S)


class _Msvcrt:
    """Windows' ``msvcrt`` locking calls, recorded; ``held``: another process has the byte."""

    LK_NBLCK, LK_UNLCK = 2, 0

    def __init__(self, held: bool) -> None:
        self.held = held
        self.calls: list[tuple[int, int, int]] = []

    def locking(self, descriptor: int, mode: int, size: int) -> None:
        self.calls.append((descriptor, mode, size))
        if self.held and mode == self.LK_NBLCK:
            raise PermissionError(13, "Permission denied")


@pytest.mark.parametrize("held", [False, True])
def test_on_windows_the_first_byte_is_locked_without_waiting(
    monkeypatch: pytest.MonkeyPatch, held: bool
) -> None:
    import sys
    from types import SimpleNamespace

    msvcrt = _Msvcrt(held)
    monkeypatch.setitem(sys.modules, "msvcrt", msvcrt)
    monkeypatch.setattr(lock_module, "os", SimpleNamespace(name="nt"))
    assert lock_module._try_lock(7) is not held  # noqa: SLF001 - the platform's one step
    lock_module._unlock(7)  # noqa: SLF001
    assert msvcrt.calls == [(7, _Msvcrt.LK_NBLCK, 1), (7, _Msvcrt.LK_UNLCK, 1)]
