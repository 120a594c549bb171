"""Which file ``pi-sdk chat`` saves to and which one ``--continue`` opens, in every case.

:mod:`pi_sdk._cli.chat_session`, in process on a fake clock: a new session's name is the local
second and six digits of the clock's nanoseconds, never a file that exists (a new chat must not
load another chat's session); ``--continue`` takes the most recently written of the recorded
session and ``sessions/``, and says when the recorded one is gone; ``--session`` in a missing
folder, an empty file, a cut file with and without ``--allow-truncated``. Every text asserted
whole.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import pi_sdk
from pi_sdk._cli import chat_session
from pi_sdk._cli.chat_session import latest_session, new_session_path, open_session, record_saved
from pi_sdk._cli.common import UsageError

STAMP = "20261202-101500"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI's data folder (``XDG_DATA_HOME``), empty."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "pi-sdk"


def _clock(monkeypatch: pytest.MonkeyPatch, *nanoseconds: int) -> None:
    """The module's clock: the local second ``STAMP``, then these ``time_ns`` readings."""
    readings: Iterator[int] = iter(nanoseconds)
    fake = SimpleNamespace(
        strftime=lambda fmt: STAMP if fmt == "%Y%m%d-%H%M%S" else pytest.fail(fmt),
        time_ns=lambda: next(readings),
    )
    monkeypatch.setattr(chat_session, "time", fake)


def _save(path: Path, text: str = "Capital of France?") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pi_sdk.save_session(path, [pi_sdk.UserMessage(content=text, timestamp=1)])


@pytest.mark.parametrize(
    ("nanoseconds", "digits"),
    [
        (1_765_000_000_123_456_789, "456789"),
        (1_765_000_000_000_000_042, "000042"),
        (999_999, "999999"),
        (1_000_000, "000000"),
    ],
)
def test_a_new_session_is_named_after_the_second_and_six_digits_of_the_clock(
    data: Path, monkeypatch: pytest.MonkeyPatch, nanoseconds: int, digits: str
):
    _clock(monkeypatch, nanoseconds)
    assert new_session_path() == data / "sessions" / f"{STAMP}-{digits}.jsonl"


def test_chats_started_in_the_same_second_get_their_own_files(
    data: Path, monkeypatch: pytest.MonkeyPatch
):
    _clock(monkeypatch, 5_000_000_001, 5_000_000_002)
    assert [new_session_path().name, new_session_path().name] == [
        f"{STAMP}-000001.jsonl",
        f"{STAMP}-000002.jsonl",
    ]


@pytest.mark.parametrize(
    ("taken", "reading", "expected"),
    [
        (["456789"], 123_456_789, "456790"),
        (["456789", "456790"], 123_456_789, "456791"),
        (["999999"], 999_999, "000000"),
    ],
)
def test_a_new_session_never_takes_a_file_that_exists(
    data: Path, monkeypatch: pytest.MonkeyPatch, taken: list[str], reading: int, expected: str
):
    for digits in taken:
        _save(data / "sessions" / f"{STAMP}-{digits}.jsonl")
    _clock(monkeypatch, reading)
    assert new_session_path() == data / "sessions" / f"{STAMP}-{expected}.jsonl"


def test_a_new_chat_does_not_load_a_session_saved_at_the_same_moment(
    data: Path, monkeypatch: pytest.MonkeyPatch
):
    other = data / "sessions" / f"{STAMP}-000007.jsonl"
    _save(other, "another chat's question")
    _clock(monkeypatch, 7)
    opened = open_session(None, resume=False)
    assert (opened.path, opened.messages, opened.metadata, opened.notes) == (
        data / "sessions" / f"{STAMP}-000008.jsonl",
        [],
        {},
        [],
    )


# --- --continue ------------------------------------------------------------------------------


def test_continue_with_no_session_at_all_says_where_it_looked(data: Path):
    with pytest.raises(UsageError) as raised:
        latest_session()
    assert str(raised.value) == (
        f"nothing to continue: no session in {data / 'sessions'} (`pi-sdk chat` writes them there)"
    )


def test_continue_when_the_recorded_session_is_gone_and_no_other_exists(data: Path, tmp_path: Path):
    kept = tmp_path / "kept.jsonl"
    _save(kept)
    record_saved(kept)
    kept.unlink()
    with pytest.raises(UsageError) as raised:
        latest_session()
    assert str(raised.value) == (
        f"nothing to continue: the session saved last, {kept}, no longer exists, and there is"
        f" none in {data / 'sessions'} (`pi-sdk chat` writes them there)"
    )


def test_continue_when_the_recorded_session_is_gone_takes_the_newest_of_sessions(
    data: Path, tmp_path: Path
):
    older, newer = data / "sessions" / "a.jsonl", data / "sessions" / "b.jsonl"
    _save(newer)
    _save(older)
    os.utime(older, (1_000, 1_000))
    os.utime(newer, (2_000, 2_000))
    kept = tmp_path / "kept.jsonl"
    _save(kept)
    record_saved(kept)
    kept.unlink()
    assert latest_session() == (
        newer,
        f"the session saved last, {kept}, no longer exists; continuing {newer}",
    )
    opened = open_session(None, resume=True)
    assert (opened.path, opened.notes) == (
        newer,
        [f"the session saved last, {kept}, no longer exists; continuing {newer}"],
    )


@pytest.mark.parametrize("recorded_is_newest", [True, False])
def test_continue_takes_the_most_recently_written_of_the_recorded_session_and_sessions(
    data: Path, tmp_path: Path, recorded_is_newest: bool
):
    in_folder, kept = data / "sessions" / "a.jsonl", tmp_path / "kept.jsonl"
    _save(in_folder, "in the folder")
    _save(kept, "moved out")
    record_saved(kept)
    os.utime(kept, (3_000, 3_000) if recorded_is_newest else (1_000, 1_000))
    os.utime(in_folder, (2_000, 2_000))
    newest = kept if recorded_is_newest else in_folder
    assert latest_session() == (newest, None)
    opened = open_session(None, resume=True)
    assert [m.content for m in opened.messages] == [
        "moved out" if recorded_is_newest else "in the folder"
    ]


def test_the_record_of_the_last_save_is_the_absolute_path_owner_only(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    record_saved(Path("relative.jsonl"))
    pointer = data / "last-session"
    assert pointer.read_text("utf-8") == f"{tmp_path / 'relative.jsonl'}\n"
    assert stat.S_IMODE(pointer.stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert [p.name for p in data.iterdir()] == ["last-session"]  # no temporary file left


# --- --session FILE --------------------------------------------------------------------------


def test_a_session_in_a_missing_folder_is_refused(data: Path, tmp_path: Path):
    missing = tmp_path / "nowhere" / "s.jsonl"
    with pytest.raises(UsageError) as raised:
        open_session(missing, resume=False)
    assert str(raised.value) == (
        f"--session {missing}: the folder {tmp_path / 'nowhere'} does not exist"
    )


@pytest.mark.parametrize("exists", [False, True])
def test_a_new_or_empty_session_file_starts_an_empty_chat_there(
    data: Path, tmp_path: Path, exists: bool
):
    path = tmp_path / "s.jsonl"
    if exists:
        path.touch()
    opened = open_session(path, resume=False)
    assert (opened.path, opened.messages, opened.metadata, opened.notes) == (path, [], {}, [])


def test_a_cut_session_is_refused_naming_the_option_then_loaded_with_it(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cut = tmp_path / "cut.jsonl"
    question = pi_sdk.UserMessage(content="Capital of France?", timestamp=1)
    pi_sdk.save_session(cut, [question, question], metadata={"model": "a/b"})
    cut.write_bytes(cut.read_bytes()[:-10])
    before = cut.read_bytes()
    with pytest.raises(UsageError) as raised:
        open_session(cut, resume=False)
    assert str(raised.value) == (
        f"{cut}: the header records 2 entries but the file holds 1: the last 1 is missing (the"
        " file was cut short; line 3: the file ends inside this line (a JSON value that does"
        " not end: Unterminated string starting at)); pass --allow-truncated to continue"
        " from the entries before it"
    )
    _clock(monkeypatch, 12)
    opened = open_session(cut, resume=False, allow_truncated=True)
    new = data / "sessions" / f"{STAMP}-000012.jsonl"
    assert (opened.path, [m.content for m in opened.messages], opened.metadata) == (
        new,
        ["Capital of France?"],
        {"model": "a/b"},
    )
    assert opened.notes == [
        f"{cut} was cut short: loaded its complete entries (1 entry) and left it as it is;"
        f" this chat saves to {new}"
    ]
    assert cut.read_bytes() == before


# --- files that cannot be read or written ----------------------------------------------------


def test_a_record_that_cannot_be_written_is_skipped_quietly(data: Path):
    data.parent.mkdir(parents=True)
    data.write_text("a file where the data folder should be")
    record_saved(Path("/somewhere/s.jsonl"))  # best effort: no error
    assert data.read_text() == "a file where the data folder should be"


def test_an_unreadable_record_is_ignored(data: Path):
    (data / "last-session").mkdir(parents=True)  # a folder: reading it fails
    newest = data / "sessions" / "a.jsonl"
    _save(newest)
    assert latest_session() == (newest, None)


def test_a_session_that_cannot_be_read_says_why(data: Path, tmp_path: Path):
    folder = tmp_path / "a-folder.jsonl"
    folder.mkdir()
    with pytest.raises(UsageError) as raised:
        open_session(folder, resume=False)
    assert str(raised.value) == f"cannot read the session {folder}: Is a directory"


def test_a_file_that_is_not_a_session_is_refused_in_the_librarys_words(data: Path, tmp_path: Path):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": "world"}\n')
    with pytest.raises(pi_sdk.SessionFileError) as raised:
        open_session(path, resume=False)
    assert str(raised.value) == f"{path}: line 1: not a pi-sdk-session header"
