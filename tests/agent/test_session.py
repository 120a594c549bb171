"""Session files: exact round trip, custom messages, all-or-nothing loading, atomic saving."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

import pytest
from _support.messages import opaque_blocks
from pydantic import BaseModel

from pi_sdk import (
    AssistantMessage,
    ImageContent,
    SessionFileError,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_sdk._agent.session import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_NESTING,
    dumps_session,
    load_session,
    loads_session,
    save_session,
)

REASONING_ITEM = json.dumps(
    {
        "type": "reasoning",
        "id": "rs_68c1",
        "summary": [{"type": "summary_text", "text": "Plan"}],
        "encrypted_content": "gAAAAABo" + "x" * 200,
    }
)


def rich_transcript() -> list[Any]:
    """Every opaque field a provider or a plugin may store."""
    usage = Usage(input=12, output=34, cache_read=5, cache_write=6, total_tokens=57)
    usage.cost.total = 0.1 + 0.2  # a float that must survive bit for bit
    return [
        UserMessage(
            content=[
                TextContent(text="héllo \u2028 line-sep, emoji 😀, lone \ud83d"),
                ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
            ],
            timestamp=1_733_000_000_000,
        ),
        AssistantMessage(
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-4-5",
            signature_origin="anthropic-messages@https://api.anthropic.com",
            content=opaque_blocks(),
            usage=usage,
            stop_reason="toolUse",
            timestamp=1_733_000_000_001,
        ),
        ToolResultMessage(
            tool_call_id="toolu_01",
            tool_name="get_weather",
            content=[TextContent(text="sunny")],
            details={"raw": {"temp": 21.5}, "units": ["C"]},
            timestamp=1_733_000_000_002,
        ),
        AssistantMessage.model_validate(
            {
                "role": "assistant",
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-5",
                "content": [
                    {"type": "thinking", "thinking": "", "thinkingSignature": REASONING_ITEM},
                    {
                        "type": "toolCall",
                        "id": "call_1|fc_2",
                        "name": "f",
                        "arguments": {},
                        "partialJson": "{}",
                        "vendorBlockField": [1],
                    },
                ],
                "stopReason": "toolUse",
                "timestamp": 1_733_000_000_003,
                "futurePiMonoField": {"kept": True},
            }
        ),
    ]


def test_exact_round_trip_of_every_opaque_field(tmp_path: Path) -> None:
    messages = rich_transcript()
    path = tmp_path / "s.jsonl"
    save_session(path, messages, metadata={"model": {"provider": "anthropic", "id": "x"}})
    loaded = load_session(path)
    assert loaded.messages == messages
    assert [type(m) for m in loaded.messages] == [type(m) for m in messages]
    assert loaded.metadata == {"model": {"provider": "anthropic", "id": "x"}}
    assert loaded.version == FORMAT_VERSION
    # byte-stable: saving what was loaded writes the same file
    again = tmp_path / "again.jsonl"
    save_session(again, loaded.messages, metadata=loaded.metadata)
    assert again.read_bytes() == path.read_bytes()
    lines = path.read_text(encoding="utf-8").split("\n")
    assert json.loads(lines[0]) == {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "count": len(messages),
        "metadata": {"model": {"provider": "anthropic", "id": "x"}},
    }
    assert len([line for line in lines if line]) == 1 + len(messages)
    # pi-mono's JSON shape on each line
    assistant_line = json.loads(lines[2])
    assert assistant_line["stopReason"] == "toolUse"
    assert assistant_line["content"][3]["type"] == "toolCall"
    assert json.loads(lines[4])["futurePiMonoField"] == {"kept": True}


def test_lone_surrogate_escaped_other_text_readable(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    save_session(path, [UserMessage(content="é \ud800"), UserMessage(content="plain é")])
    raw = path.read_bytes()
    raw.decode("utf-8")  # valid UTF-8 even with a lone surrogate inside
    assert "plain é".encode() in raw
    assert load_session(path).messages[0].content == "é \ud800"


class Note(BaseModel):
    role: Literal["piTestSessionNote"] = "piTestSessionNote"
    text: str
    timestamp: int = 0


def test_custom_messages_registered_and_unregistered(tmp_path: Path) -> None:
    messages_module = pytest.importorskip("pi_sdk._agent.messages")
    raw_entry = {"role": "appOnlyRecord", "command": "ls", "output": "a\nb", "exitCode": 0}
    messages = [UserMessage(content="hi"), Note(text="remember this"), raw_entry]
    path = tmp_path / "s.jsonl"
    messages_module.register_message_type(Note, lambda n: [UserMessage(content=n.text)])
    try:
        save_session(path, messages)
        loaded = load_session(path).messages
        assert loaded == messages and isinstance(loaded[1], Note)
        assert loaded[2] == raw_entry and isinstance(loaded[2], dict)
    finally:
        messages_module.unregister_message_type(Note)
    unregistered = load_session(path).messages  # nobody knows "note" now: kept as its dict
    assert unregistered[1] == {"role": "piTestSessionNote", "text": "remember this", "timestamp": 0}
    save_session(path, unregistered)
    assert load_session(path).messages == unregistered


def _header(version: Any = FORMAT_VERSION) -> str:
    return json.dumps({"format": FORMAT_NAME, "version": version, "metadata": {}})


GOOD = json.dumps({"role": "user", "content": "ok", "timestamp": 1})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("not json\n" + GOOD, "line 1"),
        (json.dumps({"format": "other", "version": 1}) + "\n", "header"),
        (_header("1") + "\n", "invalid session file format version"),
        (_header(0) + "\n", "invalid session file format version"),
        (_header(FORMAT_VERSION + 1) + "\n" + GOOD, "newer"),
        (_header() + "\n" + GOOD + "\n{broken\n", "line 3: invalid JSON"),
        (_header() + "\n" + GOOD + '\n{"role": "user"}x\n', r"line 3: invalid JSON \(Extra data\)"),
        (_header() + "\n" + GOOD + '\n{"role": "user"}x', r"line 3: invalid JSON \(Extra data\)"),
        (_header() + "\n" + GOOD + "\n[1, 2]", "line 3: not a message"),
        (_header() + "\n" + json.dumps({"content": "no role"}), "line 2: not a message"),
        (
            _header() + "\n" + GOOD + "\n" + json.dumps({"role": "assistant", "content": []}),
            "line 3: invalid assistant message",
        ),
        (
            _header() + "\n" + json.dumps({"role": "toolResult", "toolName": "f"}),
            "line 2: invalid toolResult message",
        ),
        # The real problem, in the file's terms: not the first branch of a union that failed.
        (
            _header() + "\n" + json.dumps({"role": "user", "content": [{"type": "audio"}]}),
            r"line 2: invalid user message: content\[0\]: unknown block type 'audio'"
            r" \(expected 'text', 'image', 'document'\)$",
        ),
        (
            _header() + "\n" + json.dumps({"role": "user", "content": 42}),
            r"line 2: invalid user message: content: Input should be a valid string or a valid"
            r" list \(got number\)$",
        ),
        (
            _header() + "\n" + GOOD + "\n" + json.dumps({"role": "user", "content": [{"x": 1}]}),
            r"line 3: invalid user message: content\[0\]: a block without a 'type'$",
        ),
        (
            _header()
            + "\n"
            + json.dumps({"role": "user", "content": [{"type": "image", "data": "iVBO"}]}),
            r"line 2: invalid user message: content\[0\]\.mimeType: Field required$",
        ),
        (
            _header() + "\n" + json.dumps({"role": "assistant", "content": []}),
            r"assistant message: api: Field required \(\+2 more: provider, model\)$",
        ),
        # Load refuses what save refuses (strict JSON), with a SessionFileError.
        (_header() + "\n" + GOOD.replace('"ok"', "NaN"), "line 2: NaN is not JSON"),
        (_header() + "\n" + GOOD.replace('"ok"', "[-Infinity]"), "line 2: -Infinity is not JSON"),
        (_header() + "\n" + GOOD.replace('"ok"', "1e400"), "line 2: number 1e400 is out of float"),
        (_header().replace("{}", '{"x": Infinity}') + "\n", "line 1: Infinity is not JSON"),
        # Past Python's int-conversion limit (sys.get_int_max_str_digits(), 4,300 digits).
        (_header() + "\n" + GOOD.replace('"ok"', "9" * 4_301), "line 2: an integer of 4301 digits"),
        (_header().replace("{}", '{"n": -' + "1" * 9_999 + "}") + "\n", "line 1: an integer"),
        (
            _header() + "\n" + GOOD.replace('"ok"', "[" * 100_000 + "]" * 100_000),
            f"line 2: nested deeper than {MAX_NESTING} levels",
        ),
        (
            _header().replace("{}", "[" * 5_000 + "]" * 5_000) + "\n",
            f"line 1: nested deeper than {MAX_NESTING} levels",
        ),
    ],
)
def test_malformed_files_raise_and_load_nothing(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SessionFileError, match=fragment) as info:
        load_session(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(_header().encode() + b"\n\xff\xfe")
    with pytest.raises(SessionFileError, match="UTF-8"):
        load_session(path)


def test_byte_order_mark_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    messages = rich_transcript()
    save_session(path, messages)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # as some Windows editors save
    assert load_session(path).messages == messages
    assert loads_session(path.read_text(encoding="utf-8")).messages == messages


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _json_text(value: Any) -> str:
    """JSON text for ``value``, NaN and Infinity included; iterative for nested lists."""
    depth = 0
    while isinstance(value, list) and len(value) == 1:
        value, depth = value[0], depth + 1
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # an integer of any length, as another writer would write it
    try:
        return "[" * depth + json.dumps(value, allow_nan=True) + "]" * depth
    finally:
        sys.set_int_max_str_digits(limit)


@pytest.mark.parametrize(
    ("details", "accepted"),
    [
        pytest.param(float("nan"), False, id="nan"),
        pytest.param(float("inf"), False, id="inf"),
        pytest.param(-float("inf"), False, id="-inf"),
        pytest.param({"x": [1.5, float("nan")]}, False, id="nan-inside"),
        # The message object is the line's first level: details may nest limit - 1 deep.
        pytest.param(_nested(MAX_NESTING - 1), True, id="at-limit"),
        pytest.param(_nested(MAX_NESTING), False, id="over-limit"),
        pytest.param(_nested(5_000), False, id="far-over-limit"),
        pytest.param([1e308, -1e308, 5e-324], True, id="extreme-floats"),
        pytest.param(10**4_299, True, id="int-at-limit"),
        pytest.param(-(10**4_300), False, id="int-over-limit"),
        pytest.param({"deep": _nested(200), "wide": [_nested(50)] * 100}, True, id="deep-wide"),
    ],
)
def test_load_and_save_accept_the_same_values(tmp_path: Path, details: Any, accepted: bool) -> None:
    """Whatever save refuses, load refuses too (and the other way round); both say why."""
    message = ToolResultMessage(tool_call_id="a", tool_name="f", details=details, timestamp=1)
    path = tmp_path / "s.jsonl"
    try:
        save_session(path, [message])
    except SessionFileError as exc:
        save_error: SessionFileError | None = exc
    else:
        save_error = None
    # The same entry written by hand (Python's json writes NaN / Infinity when allowed).
    line = json.dumps(
        {**message.model_dump(by_alias=True), "details": "DETAILS"}, allow_nan=True
    ).replace('"DETAILS"', _json_text(details))
    try:
        loaded = loads_session(_header() + "\n" + line + "\n")
    except SessionFileError as exc:
        load_error: SessionFileError | None = exc
    else:
        load_error = None
        assert loaded.messages == [message]
    assert (save_error is None, load_error is None) == (accepted, accepted), (
        save_error,
        load_error,
    )
    if save_error is not None:
        assert not path.exists()
        assert "message 0" in str(save_error)
        assert str(load_error).startswith("line 2: ")
    else:
        assert load_session(path).messages == [message]


def test_crlf_and_blank_lines_tolerated() -> None:
    text = _header() + "\r\n" + GOOD + "\r\n\r\n" + GOOD + "\r\n"
    assert len(loads_session(text).messages) == 2


def test_unsavable_transcript_writes_nothing_and_keeps_old_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    save_session(path, [UserMessage(content="v1")])
    before = path.read_bytes()
    bad_details = ToolResultMessage(tool_call_id="a", tool_name="f", details={"x": float("nan")})
    for bad in ([UserMessage(content="v2"), bad_details], [UserMessage(content="v2"), object()]):
        with pytest.raises(SessionFileError, match="message 1"):
            save_session(path, bad)
    with pytest.raises(SessionFileError, match="metadata"):
        save_session(path, [], metadata={"x": {1, 2}})
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["s.jsonl"]  # no temporary file left behind


def test_write_failure_leaves_previous_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    save_session(path, [UserMessage(content="v1")])
    before = path.read_bytes()

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        save_session(path, [UserMessage(content="v2")])
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["s.jsonl"]


@pytest.mark.parametrize("where", ["missing folder", "folder is a file", "target is a folder"])
def test_os_errors_name_the_target_not_the_temporary_file(tmp_path: Path, where: str) -> None:
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_folder").mkdir()
    target = {
        "missing folder": tmp_path / "nope" / "s.jsonl",
        "folder is a file": tmp_path / "a_file" / "s.jsonl",
        "target is a folder": tmp_path / "a_folder",
    }[where]
    with pytest.raises(OSError) as info:
        save_session(target, [UserMessage(content="hi")])
    assert info.value.filename == str(target)
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)
    assert sorted(os.listdir(tmp_path)) == ["a_file", "a_folder"]
    assert os.listdir(tmp_path / "a_folder") == []


def test_dumps_is_deterministic() -> None:
    messages = rich_transcript()
    assert dumps_session(messages) == dumps_session(loads_session(dumps_session(messages)).messages)


def test_why_a_value_is_not_json_in_a_users_words() -> None:
    from pi_sdk._agent.jsonl import encode_json, not_json_reason
    from pi_sdk._wire.strict_json import StrictJsonError

    nan = StrictJsonError("NaN is not JSON")
    assert not_json_reason(nan) == "NaN is not JSON"  # already in a user's words
    with pytest.raises(TypeError) as caught:
        encode_json({"when": object()})
    assert not_json_reason(caught.value).startswith("not JSON data (")
    assert not_json_reason(ValueError("odd")) == "not JSON data (odd)"
