"""Every refusal of the two session formats, each text whole, and two migrations pi does.

pi-sdk's own format (:func:`pi_sdk.loads_session` / :func:`pi_sdk.dumps_session`): a first
line that is no header object, a header whose ``metadata`` is no object, an entry to save with
no string ``role``. pi-coding-agent's (:func:`pi_sdk.agent.import_pi_session`): a first line
that is no header, a pi-sdk file given instead, a message entry without a message, a line that
is no entry, invalid custom-message and compaction entries. Migrations as pi does them: a
timestamp without a zone is UTC; version 1's ``firstKeptEntryIndex`` (which counted the
header) becomes the id of the entry it points at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from pi_sdk import SessionFileError, UserMessage
from pi_sdk._agent.session import dumps_session, loads_session
from pi_sdk.agent import PiBranchSummary, PiCompactionSummary, import_pi_session

PI_HEADER = '{"type":"session","id":"x","version":3}'


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[1, 2]\n", "line 1: not a pi-sdk-session header"),
        ('"header"\n', "line 1: not a pi-sdk-session header"),
        ('\n{"format":"pi-sdk-session","version":1}\n', "line 1: not a pi-sdk-session header"),
        (
            '{"format":"pi-sdk-session","version":1,"count":0,"metadata":[1]}\n',
            "line 1: 'metadata' must be a JSON object",
        ),
    ],
)
def test_a_pi_sdk_session_header_is_checked(text: str, error: str):
    with pytest.raises(SessionFileError) as raised:
        loads_session(text)
    assert str(raised.value) == error


HEADER = '{"format":"pi-sdk-session","version":1,"count":2}\n'


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('["role", "user"]', "line 3: not a message (no string 'role')"),
        ('{"role": 1, "content": "x"}', "line 3: not a message (no string 'role')"),
    ],
)
def test_each_pi_sdk_session_entry_is_checked(line: str, error: str):
    good = '{"role":"user","content":"hi","timestamp":1}'
    assert loads_session(HEADER.replace('"count":2', '"count":1') + good + "\n").messages == [
        UserMessage(content="hi", timestamp=1)
    ]
    with pytest.raises(SessionFileError) as raised:
        loads_session(HEADER + good + "\n" + line + "\n")
    assert str(raised.value) == error


@pytest.mark.parametrize(
    ("entry", "index"),
    [({"content": "no role"}, 1), ({"role": 7, "content": "x"}, 1)],
)
def test_an_entry_to_save_needs_a_string_role(entry: dict[str, Any], index: int):
    with pytest.raises(SessionFileError) as raised:
        dumps_session([UserMessage(content="ok"), entry])
    assert str(raised.value) == f"cannot save message {index}: it has no string 'role'"


def _pi_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "pi.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (['["not", "a", "header"]'], "line 1: not a pi-coding-agent session header"),
        (["", PI_HEADER], "line 1: not a pi-coding-agent session header"),
        (
            ['{"format":"pi-sdk-session","version":1}'],
            "line 1: this is a pi-sdk session file; read it with pi_sdk.load_session",
        ),
        (
            [PI_HEADER, '{"type":"message","id":"a","parentId":null,"message":"hi"}'],
            "line 2: a message entry without a message",
        ),
        (
            [PI_HEADER, '{"type":"message","id":"a","parentId":null,"message":{"content":"x"}}'],
            "line 2: a message entry without a message",
        ),
        ([PI_HEADER, '["an", "array"]'], "line 2: not a session entry (no string 'type')"),
        ([PI_HEADER, '{"type": 3, "id": "a"}'], "line 2: not a session entry (no string 'type')"),
    ],
)
def test_a_pi_session_that_is_not_one_is_refused_naming_the_line(
    tmp_path: Path, lines: list[str], error: str
):
    path = _pi_file(tmp_path, *lines)
    with pytest.raises(SessionFileError) as raised:
        import_pi_session(path)
    assert str(raised.value) == f"{path}: {error}"


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            '{"type":"custom_message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z",'
            '"customType":"ext","content":5,"display":true}',
            "invalid custom_message entry: content: Input should be a valid string or a valid"
            " list (got number)",
        ),
        (
            '{"type":"compaction","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z",'
            '"summary":5,"tokensBefore":10,"firstKeptEntryId":"a"}',
            "invalid compaction entry: summary: Input should be a valid string (got number)",
        ),
    ],
)
def test_invalid_custom_message_and_compaction_entries_name_the_line(
    tmp_path: Path, entry: str, error: str
):
    path = _pi_file(tmp_path, PI_HEADER, entry)
    with pytest.raises(SessionFileError) as raised:
        import_pi_session(path)
    assert str(raised.value) == f"{path}: line 2: {error}"


@pytest.mark.parametrize(
    ("stamp", "ms"),
    [
        ("2026-01-02T03:04:05.678", 1_767_323_045_678),
        ("2026-01-02T03:04:05.678Z", 1_767_323_045_678),
        ("2026-01-02T04:04:05.678+01:00", 1_767_323_045_678),
    ],
)
def test_a_timestamp_without_a_zone_is_utc(tmp_path: Path, stamp: str, ms: int):
    path = _pi_file(
        tmp_path,
        PI_HEADER,
        json.dumps(
            {
                "type": "branch_summary",
                "id": "a",
                "parentId": None,
                "timestamp": stamp,
                "summary": "s",
                "fromId": "root",
            }
        ),
    )
    (summary,) = import_pi_session(path).messages
    assert isinstance(summary, PiBranchSummary) and summary.timestamp == ms


def _v1(kept_index: int) -> list[str]:
    """A version-1 file: two turns, then a compaction keeping from entry ``kept_index``."""
    stamp = "2025-01-01T00:00:00.000Z"
    entries: list[dict[str, Any]] = [{"type": "session", "id": "old", "timestamp": stamp}]
    for n, text in enumerate(["one", "two", "three"]):
        message = {"role": "user", "content": text, "timestamp": n}
        entries.append({"type": "message", "timestamp": stamp, "message": message})
    entries.append(
        {
            "type": "compaction",
            "timestamp": stamp,
            "summary": "earlier talk",
            "tokensBefore": 100,
            "firstKeptEntryIndex": kept_index,
        }
    )
    return [json.dumps(e) for e in entries]


@pytest.mark.parametrize(
    ("kept_index", "kept"),
    [
        (1, ["one", "two", "three"]),
        (2, ["two", "three"]),
        (3, ["three"]),
        (4, []),  # the compaction entry itself
        (5, []),  # past the last entry: no id
        (9, []),
    ],
)
def test_version_1_compaction_keeps_from_the_entry_its_index_counted_with_the_header(
    tmp_path: Path, kept_index: int, kept: list[str]
):
    session = import_pi_session(_pi_file(tmp_path, *_v1(kept_index)))
    summary, *rest = session.messages
    assert isinstance(summary, PiCompactionSummary) and summary.summary == "earlier talk"
    assert [m.content for m in rest] == kept
    compaction = session.entries[-1]
    ids = [e["id"] for e in session.entries]
    expected = ids[kept_index - 1] if kept_index - 1 < len(ids) else None
    assert compaction.get("firstKeptEntryId") == expected
    assert "firstKeptEntryIndex" not in compaction


def test_an_empty_transcript_round_trips_with_a_count_of_zero_and_its_metadata():
    text = dumps_session([], metadata={"model": "a/b"})
    assert text == (
        '{"format":"pi-sdk-session","version":1,"count":0,"metadata":{"model":"a/b"}}\n'
    )
    loaded = loads_session(text)
    assert (loaded.messages, loaded.metadata, loaded.version) == ([], {"model": "a/b"}, 1)
    assert (loaded.count, loaded.truncated) == (0, False)
    assert loads_session(dumps_session([])).metadata == {}


@pytest.mark.parametrize(
    ("messages", "metadata", "error"),
    [
        (
            [UserMessage(content="ok"), object()],
            None,
            "cannot save message 1: expected a message model or a dict, got object",
        ),
        (
            [],
            {"x": {1, 2}},
            "cannot save session metadata: not JSON data"
            " (Object of type set is not JSON serializable)",
        ),
    ],
)
def test_what_cannot_be_saved_is_said_whole(
    messages: list[Any], metadata: dict[str, Any] | None, error: str
):
    with pytest.raises(SessionFileError) as raised:
        dumps_session(messages, metadata=metadata)
    assert str(raised.value) == error


class _Five(BaseModel):
    a: str
    b: str
    c: str
    d: str
    e: str = ""


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"a": "x", "b": "x", "c": "x", "d": "x"}, None),
        ({"a": "x", "b": "x"}, "c: Field required (+1 more: d)"),
        ({"e": "x"}, "a: Field required (+3 more: b, c, d)"),  # three others: all named
        ({"a": 1}, "a: Input should be a valid string (got number) (+3 more: b, c, d)"),
        (
            {"a": 1, "e": 2},
            "a: Input should be a valid string (got number) (+4 more: b, c, d, ...)",
        ),
    ],
)
def test_a_validation_error_names_three_other_places_at_most(data: Any, said: str | None) -> None:
    from pi_sdk._agent.entry_errors import describe_validation

    if said is None:
        _Five.model_validate(data)
        return
    with pytest.raises(ValidationError) as caught:
        _Five.model_validate(data)
    assert describe_validation(caught.value, data) == said


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ({}, "object"),
        ([], "array"),
        (3, "number"),
        (1.5, "number"),
        (True, "boolean"),
        (None, "null"),
        (object(), "a value"),
    ],
)
def test_a_wrong_type_is_named_in_json_terms(value: Any, name: str) -> None:
    from pi_sdk._agent.entry_errors import describe_validation

    class One(BaseModel):
        x: str

    with pytest.raises(ValidationError) as caught:
        One.model_validate({"x": value})
    assert describe_validation(caught.value, {"x": value}) == (
        f"x: Input should be a valid string (got {name})"
    )


class _Tree(BaseModel):
    """A custom message's recursive content: each level a branch or a list of them."""

    v: int
    child: _Tree | list[_Tree] | None = None


@pytest.mark.parametrize("levels", [3, 140], ids=["shallow", "past-256-path-items"])
def test_a_missing_field_deep_in_the_data_is_named_by_its_whole_path(levels: int) -> None:
    # 140 levels make a path of 281 items and a pydantic location of about 560 (union labels
    # between the levels): past the ints CPython keeps one object of.
    from pi_sdk._agent.entry_errors import describe_validation

    data: dict[str, Any] = {}  # the deepest level lacks "v"
    for _ in range(levels):
        data = {"v": 1, "child": [data]}
    with pytest.raises(ValidationError) as caught:
        _Tree.model_validate(data)
    assert describe_validation(caught.value, data) == "child[0]." * levels + "v: Field required"
