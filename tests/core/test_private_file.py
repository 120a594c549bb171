"""Owner-only files (``pi_sdk/_wire/private_file.py``): every error of a save names the target
(never the temporary file) and leaves nothing behind; a read refuses what it cannot trust and
what is too large, and tells a missing file from an unreadable one.

The Windows branches (``msvcrt`` locking, no mode checks) run here with ``sys.platform`` set to
``"win32"`` for the module and a recording stand-in for ``msvcrt``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from pi_sdk._wire import private_file
from pi_sdk._wire.private_file import locked, read_private, write_atomically


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _refusal(path: Path, max_bytes: int) -> tuple[object, ...]:
    """``(errno, strerror, filename)`` of the ``OSError`` reading ``path`` raises."""
    with pytest.raises(OSError) as caught:
        read_private(path, max_bytes=max_bytes)
    return caught.value.errno, caught.value.strerror, caught.value.filename


def test_a_save_that_cannot_make_its_temporary_file_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def full(**kwargs: object) -> tuple[int, str]:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / ".s.json.x.tmp"))

    monkeypatch.setattr(private_file.tempfile, "mkstemp", full)
    target = tmp_path / "s.json"
    with pytest.raises(OSError) as caught:
        write_atomically(target, "{}", what="the models store")
    assert type(caught.value) is OSError and caught.value.errno == errno.ENOSPC
    assert caught.value.strerror == "cannot save the models store: No space left on device"
    assert caught.value.filename == os.fspath(target)
    assert _leftovers(tmp_path) == []


def test_an_interrupted_save_removes_its_temporary_file_and_raises_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    target = tmp_path / "s.json"
    target.write_text("old")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(private_file.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "new")
    assert _leftovers(tmp_path) == ["s.json"] and target.read_text() == "old"


def test_an_error_that_is_not_a_system_error_is_raised_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    plain = OSError("the rename was refused")

    def refuse(src: str, dst: object) -> None:
        raise plain

    monkeypatch.setattr(private_file.os, "replace", refuse)
    with pytest.raises(OSError) as caught:
        write_atomically(tmp_path / "s.json", "x")
    assert caught.value is plain  # no errno: nothing in it names the temporary file
    assert _leftovers(tmp_path) == []


def test_a_failing_rename_names_the_target_and_keeps_the_errors_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def refuse(src: str, dst: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", src, dst)

    monkeypatch.setattr(private_file.os, "replace", refuse)
    target = tmp_path / "s.json"
    with pytest.raises(PermissionError) as caught:
        write_atomically(target, "x")
    assert (caught.value.errno, caught.value.strerror, caught.value.filename) == (
        errno.EACCES,
        "cannot save session: Permission denied",
        os.fspath(target),
    )
    assert caught.value.filename2 is None
    assert _leftovers(tmp_path) == []


def test_a_temporary_file_gone_before_its_rename_still_names_only_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Someone removed the temporary file (a cleaner of the folder): the error is the rename's,
    naming the target, not one about removing the file that is already gone."""

    def vanished(src: str, dst: object) -> None:
        os.unlink(src)
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", src, dst)

    monkeypatch.setattr(private_file.os, "replace", vanished)
    target = tmp_path / "s.json"
    with pytest.raises(FileNotFoundError) as caught:
        write_atomically(target, "x", what="notes")
    assert (caught.value.errno, caught.value.strerror, caught.value.filename) == (
        errno.ENOENT,
        "cannot save notes: No such file or directory",
        os.fspath(target),
    )
    assert _leftovers(tmp_path) == []


def test_a_missing_file_reads_as_none_and_other_open_errors_are_raised(tmp_path: Path):
    assert read_private(tmp_path / "absent.json", max_bytes=10) is None
    plain = tmp_path / "plain"
    plain.write_text("x")
    plain.chmod(0o600)
    with pytest.raises(NotADirectoryError) as caught:
        read_private(plain / "child", max_bytes=10)
    assert caught.value.errno == errno.ENOTDIR


def test_a_device_is_not_a_regular_file_and_a_folder_cannot_be_read(tmp_path: Path):
    device = Path(os.devnull)
    assert _refusal(device, 10) == (errno.EPERM, "not a regular file", os.fspath(device))
    with pytest.raises(PermissionError):
        read_private(device, max_bytes=10)
    with pytest.raises(IsADirectoryError):  # an OSError: it cannot be read
        read_private(tmp_path, max_bytes=10)


def test_a_file_larger_than_the_limit_is_refused_with_both_sizes(tmp_path: Path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1_001)
    path.chmod(0o600)
    assert read_private(path, max_bytes=1_001) == b"x" * 1_001  # the limit itself is fine
    assert _refusal(path, 1_000) == (
        errno.EFBIG,
        "larger than 1,000 bytes (1,001)",
        os.fspath(path),
    )


def test_a_file_that_grew_after_its_size_was_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "growing"
    path.write_bytes(b"y" * 2_000)
    path.chmod(0o600)
    real_fstat = os.fstat

    def earlier(fd: int) -> os.stat_result:
        info = list(real_fstat(fd))
        info[6] = 10  # st_size as it was when looked at
        return os.stat_result(info)

    monkeypatch.setattr(private_file.os, "fstat", earlier)
    assert _refusal(path, 1_500) == (errno.EFBIG, "larger than 1,500 bytes", os.fspath(path))


def test_the_lock_file_is_made_owner_only_and_released(tmp_path: Path):
    lock = tmp_path / "s.lock"
    with locked(lock):
        assert lock.stat().st_mode & 0o777 == 0o600
    with locked(lock):  # released: taken again at once
        pass


class _FakeMsvcrt(types.ModuleType):
    """``msvcrt`` as :func:`locked` uses it: each call recorded with the file position."""

    LK_UNLCK, LK_LOCK = 0, 1

    def __init__(self) -> None:
        super().__init__("msvcrt")
        self.calls: list[tuple[str, int, int]] = []

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        name = {self.LK_LOCK: "lock", self.LK_UNLCK: "unlock"}[mode]
        self.calls.append((name, os.lseek(fd, 0, os.SEEK_CUR), nbytes))
        os.lseek(fd, nbytes, os.SEEK_CUR)  # the position moves on: the unlock must seek back


@pytest.fixture
def on_windows(monkeypatch: pytest.MonkeyPatch) -> _FakeMsvcrt:
    fake = _FakeMsvcrt()
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(private_file, "sys", types.SimpleNamespace(platform="win32"))
    return fake


@pytest.mark.parametrize("fails", [False, True])
def test_on_windows_the_lock_is_one_byte_from_the_start_and_released_also_on_error(
    tmp_path: Path, on_windows: _FakeMsvcrt, fails: bool
):
    opened: list[int] = []
    real_open = os.open

    def remember(*args: Any) -> int:
        opened.append(real_open(*args))
        return opened[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(private_file.os, "open", remember)
        with contextlib.suppress(RuntimeError), locked(tmp_path / "s.lock"):
            assert on_windows.calls == [("lock", 0, 1)]  # held while the block runs
            if fails:
                raise RuntimeError("the block failed")
    assert on_windows.calls == [("lock", 0, 1), ("unlock", 0, 1)]
    with pytest.raises(OSError):  # the lock file's descriptor is closed
        os.fstat(opened[0])


def test_on_windows_a_file_is_read_without_the_owner_and_mode_checks(
    tmp_path: Path, on_windows: _FakeMsvcrt
):
    shared = tmp_path / "models.json"
    shared.write_bytes(b"{}")
    shared.chmod(0o644)  # refused on POSIX: readable by others
    assert read_private(shared, max_bytes=10) == b"{}"
    assert _refusal(Path(os.devnull), 10)[:2] == (errno.EPERM, "not a regular file")


@pytest.mark.parametrize("mode", [0o640, 0o620, 0o610, 0o604, 0o602, 0o601])
def test_on_posix_any_permission_for_group_or_others_is_refused_with_the_mode(
    tmp_path: Path, mode: int
):
    shared = tmp_path / "models.json"
    shared.write_bytes(b"{}")
    shared.chmod(mode)
    assert _refusal(shared, 10) == (
        errno.EPERM,
        f"readable or writable by others (mode 0{mode:o}; expected 0600)",
        os.fspath(shared),
    )
    shared.chmod(0o600)
    assert read_private(shared, max_bytes=10) == b"{}"
