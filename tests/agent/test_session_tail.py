"""Session files that lose their tail: noticed on load, with the line; loadable on request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _support.messages import reply

from pi_sdk._agent.session import dumps_session, load_session, loads_session, save_session
from pi_sdk.errors import SessionFileError
from pi_sdk.types import Model, TextContent, ToolCall, ToolResultMessage, UserMessage

MODEL = Model(id="m", api="anthropic-messages", provider="anthropic")


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="t1", name=name, arguments=arguments)


def transcript() -> list[Any]:
    """Multi-byte characters of every UTF-8 length (2, 3 and 4 bytes) on every line."""
    return [
        UserMessage(content="héllo — 東京 😀", timestamp=1),
        reply(MODEL, TextContent(text="çà 😀"), _call("f", ville="Zürich"), timestamp=2),
        ToolResultMessage(tool_call_id="t1", tool_name="f", content=[], timestamp=3),
        UserMessage(content="ü", timestamp=4),
    ]


def _line_ends(raw: bytes) -> list[int]:
    return [i + 1 for i, byte in enumerate(raw) if byte == 0x0A]


def _inside_characters(raw: bytes) -> list[int]:
    """Every offset that falls between the bytes of one multi-byte character."""
    return [i for i, byte in enumerate(raw) if 0x80 <= byte < 0xC0]  # continuation bytes


def _complete_entries(raw: bytes, cut: int) -> int:
    """How many entry lines of ``raw[:cut]`` are whole (a line whose newline was cut is whole)."""
    whole_lines = raw.count(b"\n", 0, cut) + (1 if raw[cut : cut + 1] == b"\n" else 0)
    return max(whole_lines - 1, 0)


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, bytes, list[Any]]:
    path = tmp_path / "s.jsonl"
    messages = transcript()
    save_session(path, messages, metadata={"title": "Zürich"})
    return path, path.read_bytes(), messages


def test_every_cut_is_noticed_and_the_complete_entries_load_on_request(
    saved: tuple[Path, bytes, list[Any]], tmp_path: Path
) -> None:
    path, raw, messages = saved
    header_end = raw.index(b"\n")
    cuts = range(len(raw) - 1)  # every prefix missing more than the final newline
    assert set(_line_ends(raw)[:-1]) <= set(cuts)
    assert len(_inside_characters(raw)) == 18  # the cuts inside multi-byte characters
    cut_file = tmp_path / "cut.jsonl"
    for cut in cuts:
        cut_file.write_bytes(raw[:cut])
        with pytest.raises(SessionFileError) as info:
            load_session(cut_file)
        text = str(info.value)
        assert text.startswith(f"{cut_file}: ")
        if cut == 0:
            assert "empty session file" in text
            continue
        assert "cut short" in text, (cut, text)
        if cut < header_end:
            assert "line 1: the file ends inside this line" in text, text
            with pytest.raises(SessionFileError, match="header was cut short"):
                load_session(cut_file, allow_truncated=True)
            continue
        assert "allow_truncated=True" in text
        loaded = load_session(cut_file, allow_truncated=True)
        assert loaded.truncated
        assert loaded.messages == messages[: _complete_entries(raw, cut)], cut
        assert loaded.metadata == {"title": "Zürich"} and loaded.count == len(messages)
    assert not load_session(path).truncated  # the whole file
    cut_file.write_bytes(raw[:-1])  # all entries there, only the final newline lost
    assert load_session(cut_file).messages == messages


def test_a_cut_at_a_line_end_names_what_is_missing(saved: tuple[Path, bytes, list[Any]]) -> None:
    path, raw, messages = saved
    ends = _line_ends(raw)
    path.write_bytes(raw[: ends[2]])  # the header and two entries
    with pytest.raises(SessionFileError) as info:
        load_session(path)
    assert str(info.value) == (
        f"{path}: the header records 4 entries but the file holds 2: the last 2 are missing"
        " (the file was cut short); pass allow_truncated=True to load the entries before it"
    )
    path.write_bytes(raw[: ends[3]])
    with pytest.raises(SessionFileError, match="the last 1 is missing"):
        load_session(path)
    assert load_session(path, allow_truncated=True).messages == messages[:3]


def test_a_cut_inside_a_character_names_its_line(saved: tuple[Path, bytes, list[Any]]) -> None:
    path, raw, _ = saved
    ends = _line_ends(raw)
    emoji = raw.index("😀".encode(), ends[1])  # on line 3, the assistant message
    path.write_bytes(raw[: emoji + 2])
    with pytest.raises(SessionFileError) as info:
        load_session(path)
    assert str(info.value).startswith(
        f"{path}: the header records 4 entries but the file holds 1: the last 3 are missing"
        " (the file was cut short; line 3: the file ends inside this line (inside a multi-byte"
        " UTF-8 character))"
    )
    path.write_bytes(raw[: ends[0]] + raw[ends[0] : emoji + 2])
    assert len(load_session(path, allow_truncated=True).messages) == 1


def test_a_cut_inside_a_line_of_a_file_without_count(tmp_path: Path) -> None:
    """Files written before the count existed: a cut inside a line is still noticed."""
    raw = _without_count(dumps_session(transcript())).encode()
    path = tmp_path / "old.jsonl"
    path.write_bytes(raw[: raw.index("東".encode()) + 1])
    with pytest.raises(SessionFileError) as info:
        load_session(path)
    assert "line 2: the file ends inside this line (inside a multi-byte UTF-8 character)" in str(
        info.value
    )
    path.write_bytes(raw[:-5])
    with pytest.raises(SessionFileError, match="line 5: the file ends inside this line"):
        load_session(path)
    loaded = load_session(path, allow_truncated=True)
    assert loaded.truncated and len(loaded.messages) == 3 and loaded.count is None


def _without_count(text: str) -> str:
    head, _, rest = text.partition("\n")
    header = json.loads(head)
    del header["count"]
    return json.dumps(header) + "\n" + rest


def test_files_without_count_still_load(tmp_path: Path) -> None:
    """A cut at a line end cannot be seen in them: they load with ``count`` None."""
    text = _without_count(dumps_session(transcript()))
    whole = loads_session(text)
    assert whole.messages == transcript() and whole.count is None and not whole.truncated
    first_two = "\n".join(text.split("\n")[:3]) + "\n"
    assert len(loads_session(first_two).messages) == 2  # not detectable without the count
    path = tmp_path / "old.jsonl"
    path.write_text(text.rstrip("\n"), encoding="utf-8")  # a hand edit dropped the last newline
    assert load_session(path).messages == transcript()


def test_more_entries_than_the_count_and_a_bad_count() -> None:
    text = dumps_session([UserMessage(content="a", timestamp=1)])
    with pytest.raises(SessionFileError, match="holds 2 entries but its header records 1"):
        loads_session(text + text.split("\n")[1] + "\n")
    for bad in ('"3"', "-1", "true", "1.5"):
        head = text.replace('"count":1', f'"count":{bad}')
        with pytest.raises(SessionFileError, match="line 1: invalid count"):
            loads_session(head)


def test_invalid_utf8_names_its_line_and_byte(saved: tuple[Path, bytes, list[Any]]) -> None:
    path, raw, _ = saved
    ends = _line_ends(raw)
    damaged = bytearray(raw)
    damaged[ends[1] + 5] = 0xFF  # line 3, byte 6
    path.write_bytes(bytes(damaged))
    with pytest.raises(SessionFileError) as info:
        load_session(path, allow_truncated=True)  # damage is not a lost tail
    assert str(info.value) == (
        f"{path}: line 3: not UTF-8 text (invalid start byte at byte 6 of the line)"
    )
    head = raw[: raw.index("é".encode()) + 1] + b"\n" + raw[ends[1] :]  # a split character mid-file
    path.write_bytes(head)
    with pytest.raises(SessionFileError, match=r"line 2: not UTF-8 text \(invalid continuation"):
        load_session(path)


def test_crlf_file_cut_between_cr_and_lf_is_complete(tmp_path: Path) -> None:
    text = dumps_session(transcript()).replace("\n", "\r\n")
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(text.encode()[:-1])  # the final LF lost
    assert load_session(path).messages == transcript()


def test_a_pi_coding_agent_file_is_pointed_to_its_reader() -> None:
    header = {"type": "session", "version": 3, "id": "x", "timestamp": "t", "cwd": "/"}
    with pytest.raises(SessionFileError, match="pi-coding-agent session.*import_pi_session"):
        loads_session(json.dumps(header) + "\n")


@pytest.mark.parametrize(
    ("data", "complete", "last", "split"),
    [
        (b"a\n\xc3", [(1, "a")], None, 2),  # a character cut at the very end: line 2 was cut
        (b"\xe2\x82", [], None, 1),  # the only line, cut inside a 3-byte character
        (b"a\nb\r\nc\xe2\x82", [(1, "a"), (2, "b")], None, 3),  # the cut line's text is dropped
        (b"\xef\xbb\xbfa\n\n  \nb", [(1, "a")], (4, "b"), None),  # BOM off, blank lines skipped
        (b"a\r\nb\r", [(1, "a")], (2, "b"), None),  # a CR before the missing LF goes too
        ("a\u2028b\nc", [(1, "a\u2028b")], (2, "c"), None),  # text: U+2028 is not a line end
        (b"a\n", [(1, "a")], None, None),
    ],
)
def test_read_lines_numbers_lines_and_tells_a_cut_tail(
    data: bytes | str, complete: list[tuple[int, str]], last: Any, split: int | None
) -> None:
    from pi_sdk._agent.jsonl import read_lines

    lines = read_lines(data)
    assert (lines.complete, lines.last, lines.split_character) == (complete, last, split)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"ok\nx\xffy\n", "line 2: not UTF-8 text (invalid start byte at byte 2 of the line)"),
        (
            b"ok\n\xc3(\n",
            "line 2: not UTF-8 text (invalid continuation byte at byte 1 of the line)",
        ),
        # cut at the end of a line that a newline follows: damage, not a lost tail
        (
            b"a\n\xe2\x82\n",
            "line 2: not UTF-8 text (invalid continuation byte at byte 1 of the line)",
        ),
        # on the last line, no newline after it: still damage, not a cut character
        (b"ok\nx\xff", "line 2: not UTF-8 text (invalid start byte at byte 2 of the line)"),
        # the first error decides, though the file also ends inside a character
        (b"\xff\nb\xc3", "line 1: not UTF-8 text (invalid start byte at byte 1 of the line)"),
    ],
)
def test_read_lines_names_the_line_and_byte_of_bytes_that_are_not_utf8(
    data: bytes, message: str
) -> None:
    from pi_sdk._agent.jsonl import read_lines

    with pytest.raises(SessionFileError) as caught:
        read_lines(data)
    assert str(caught.value) == message
