"""pi-coding-agent session files both ways: import, continue in an Agent, export, read by pi.

The fixtures in ``pi_sessions/`` were written by pi-coding-agent 0.73.1's own ``SessionManager``
(``pi_sessions/write_pi_sessions.mjs``). Where node and the package are present, the tests also
run on files the package writes now, and check that pi reads what pi-sdk writes
(``pi_sessions/read_pi_session.mjs``); elsewhere those parts skip with one message.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_sdk import (
    Agent,
    AssistantMessage,
    ConfigurationError,
    SessionFileError,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    default_convert_to_llm,
    load_session,
    save_session,
)
from pi_sdk._agent.session import message_data
from pi_sdk._wire.pi_messages import BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX
from pi_sdk.agent import (
    PiBranchSummary,
    PiCompactionSummary,
    PiCustomMessage,
    agent_message_from_dict,
    export_pi_session,
    import_pi_session,
)
from pi_sdk.testing import ScriptedProvider

FIXTURES = Path(__file__).parent / "pi_sessions"
# tests/node/package.json pins pi-mono's packages; `.ci/run` installs them (`npm ci`).
PACKAGE = Path(
    os.environ.get(
        "PI_CODING_AGENT_DIR",
        Path(__file__).parents[1] / "node" / "node_modules" / "@mariozechner" / "pi-coding-agent",
    )
)
NODE = shutil.which("node")
HAVE_PI = NODE is not None and (PACKAGE / "dist/core/session-manager.js").is_file()
needs_pi = pytest.mark.skipif(
    not HAVE_PI,
    reason="node or @mariozechner/pi-coding-agent absent (`npm ci --prefix tests/node`)",
)


def _node(script: str, *args: str | Path) -> str:
    assert NODE is not None
    result = subprocess.run(
        [NODE, str(FIXTURES / script), str(PACKAGE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def pi_reads(path: Path) -> dict[str, Any]:
    """What pi-coding-agent's SessionManager makes of ``path``."""
    return json.loads(_node("read_pi_session.mjs", path))


@pytest.fixture(params=["committed", pytest.param("written-now", marks=needs_pi)])
def pi_files(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The folder with ``branched.jsonl`` and ``compacted.jsonl``, as pi wrote them."""
    if request.param == "committed":
        return FIXTURES
    _node("write_pi_sessions.mjs", tmp_path)
    return tmp_path


def _roles(messages: list[Any]) -> list[str]:
    return [m["role"] if isinstance(m, dict) else m.role for m in messages]


def test_the_leaf_path_is_the_conversation_and_every_entry_is_kept(pi_files: Path) -> None:
    session = import_pi_session(pi_files / "branched.jsonl")
    assert _roles(session.messages) == ["user", "assistant", "branchSummary", "user", "assistant"]
    call = session.messages[1]
    assert isinstance(call, AssistantMessage)
    assert call.content[0].thinking_signature == "EqQBCkYIBxgCKkA="  # pyright: ignore[reportAttributeAccessIssue]
    assert isinstance(call.content[1], ToolCall) and call.content[1].arguments == {"city": "Zürich"}
    summary = session.messages[2]
    assert isinstance(summary, PiBranchSummary) and summary.from_id == call_entry(session)
    assert session.messages[3] == UserMessage(content="And tomorrow? 😀", timestamp=1767225604000)
    assert session.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert session.thinking_level == "medium"
    assert session.leaf_id == session.entries[-1]["id"]
    kinds = [entry["type"] for entry in session.entries]
    assert kinds.count("message") == 6 and len(kinds) == 13
    custom = [e for e in session.entries if e["type"] == "custom"]
    assert custom[0]["customType"] == "my-extension/state"
    assert custom[0]["data"] == {"counter": 3, "tags": ["a", "b"]}
    assert session.header["cwd"] == "/home/user/project" and session.header["version"] == 3


def call_entry(session: Any) -> str:
    return next(
        e["id"]
        for e in session.entries
        if e["type"] == "message" and e["message"].get("stopReason") == "toolUse"
    )


def test_another_branch_on_request(pi_files: Path) -> None:
    """The abandoned branch: its tool result, answer and extension message are there."""
    first = import_pi_session(pi_files / "branched.jsonl")
    info = next(e for e in first.entries if e["type"] == "session_info")
    other = import_pi_session(pi_files / "branched.jsonl", leaf_id=info["id"])
    assert _roles(other.messages) == ["user", "assistant", "toolResult", "assistant", "custom"]
    note = other.messages[-1]
    assert isinstance(note, PiCustomMessage)
    assert note.custom_type == "my-extension/note" and note.details == {"source": "prefs"}
    assert default_convert_to_llm([note]) == [
        UserMessage(
            content=[TextContent(text="Remember: the user prefers Celsius.")],
            timestamp=note.timestamp,
        )
    ]
    with pytest.raises(SessionFileError, match="no entry with id 'nope'"):
        import_pi_session(pi_files / "branched.jsonl", leaf_id="nope")


def test_a_compaction_summary_replaces_the_start(pi_files: Path) -> None:
    session = import_pi_session(pi_files / "compacted.jsonl")
    texts = [
        m.text if not isinstance(m, PiCompactionSummary) else m.summary for m in session.messages
    ]
    assert texts == [
        "The user asked two questions.",
        "Second question",
        "Second answer",
        "Third question",
        "Third answer",
    ]
    assert session.messages[0].tokens_before == 12345
    seen = default_convert_to_llm(session.messages)[0]
    assert isinstance(seen, UserMessage)
    assert seen.text == COMPACTION_SUMMARY_PREFIX + "The user asked two questions.\n</summary>"


def test_a_pi_session_continues_on_another_provider_and_goes_back(
    pi_files: Path, tmp_path: Path
) -> None:
    source = pi_files / "branched.jsonl"
    session = import_pi_session(source)
    scripted = ScriptedProvider(["Still sunny."])
    agent = Agent(model=scripted.model, messages=session.messages)
    asyncio.run(agent.prompt("Thanks, and the day after?"))
    seen = scripted.calls[0].messages
    assert [m.role for m in seen] == [
        "user",
        "assistant",
        "toolResult",
        "user",
        "user",
        "assistant",
        "user",
    ]
    assert isinstance(seen[2], ToolResultMessage) and seen[2].is_error  # the call pi left open
    assert seen[3].text.startswith(BRANCH_SUMMARY_PREFIX)  # pyright: ignore[reportAttributeAccessIssue]

    out = tmp_path / "continued.jsonl"
    written = export_pi_session(out, agent.messages, base=session)
    original = source.read_bytes()
    assert out.read_bytes().startswith(original)  # every line of the base, unchanged
    new_lines = [json.loads(line) for line in out.read_bytes()[len(original) :].splitlines()]
    assert [e["type"] for e in new_lines] == ["message", "message"]
    assert new_lines[0]["parentId"] == session.leaf_id
    assert new_lines[1]["parentId"] == new_lines[0]["id"]
    assert new_lines[1]["message"]["provider"] == "scripted"
    assert written.messages == agent.messages
    assert import_pi_session(out).messages == agent.messages
    assert written.model == {"provider": "scripted", "modelId": scripted.model.id}


def test_export_without_changes_writes_the_same_bytes(pi_files: Path, tmp_path: Path) -> None:
    for name in ("branched.jsonl", "compacted.jsonl"):
        session = import_pi_session(pi_files / name)
        export_pi_session(tmp_path / name, session.messages, base=session)
        assert (tmp_path / name).read_bytes() == (pi_files / name).read_bytes()


def test_rewritten_history_becomes_a_branch(pi_files: Path, tmp_path: Path) -> None:
    session = import_pi_session(pi_files / "branched.jsonl")
    rewritten = [*session.messages[:3], UserMessage(content="Rather: Bern?", timestamp=5)]
    out = tmp_path / "rewritten.jsonl"
    written = export_pi_session(out, rewritten, base=session)
    assert written.messages == rewritten
    assert len(written.entries) == len(session.entries) + 1  # the old branch stays
    old_user = next(
        e for e in session.entries if e.get("message", {}).get("content") == "And tomorrow? 😀"
    )
    assert written.entries[-1]["parentId"] == old_user["parentId"]  # after the branch summary


def test_a_rewrite_inside_a_compaction_is_refused(pi_files: Path, tmp_path: Path) -> None:
    session = import_pi_session(pi_files / "compacted.jsonl")
    edited = [session.messages[0], UserMessage(content="changed", timestamp=1)]
    with pytest.raises(SessionFileError, match="differs from the pi session at message 1"):
        export_pi_session(tmp_path / "x.jsonl", edited, base=session)
    assert not (tmp_path / "x.jsonl").exists()
    branched = [*session.messages[:3], UserMessage(content="after the kept part", timestamp=1)]
    assert export_pi_session(tmp_path / "y.jsonl", branched, base=session).messages == branched


TRANSCRIPT_JSON = [
    {"role": "user", "content": "Weather in Zürich?", "timestamp": 1767225600000},
    {
        "role": "assistant",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "toolCall", "id": "toolu_01", "name": "get_weather", "arguments": {"c": 1}}
        ],
        "stopReason": "toolUse",
        "timestamp": 1767225601000,
    },
    {
        "role": "toolResult",
        "toolCallId": "toolu_01",
        "toolName": "get_weather",
        "content": [{"type": "text", "text": "4 °C"}],
        "details": {"raw": 4},
        "timestamp": 1767225602000,
    },
    {
        "role": "custom",
        "customType": "app/note",
        "content": "a note",
        "display": True,
        "details": {"k": 1},
        "timestamp": 1767225603000,
    },
    {"role": "appOnlyRecord", "text": "kept as it was", "timestamp": 1767225604000},
    {
        "role": "assistant",
        "api": "openai-responses",
        "provider": "openai",
        "model": "gpt-5",
        "content": [{"type": "text", "text": "4 °C."}],
        "timestamp": 1767225605000,
    },
]
"""A pi-sdk transcript: LLM messages, an extension's message, a record nobody registered."""


def _transcript() -> list[Any]:
    out: list[Any] = []
    for data in TRANSCRIPT_JSON:
        try:
            out.append(agent_message_from_dict(data))
        except ConfigurationError:
            out.append(dict(data))
    assert isinstance(out[3], PiCustomMessage) and isinstance(out[4], dict)
    return out


def test_a_new_pi_session_from_a_pi_sdk_transcript(tmp_path: Path) -> None:
    out = tmp_path / "new.jsonl"
    written = export_pi_session(out, _transcript(), cwd="/srv/app")
    assert written.messages == _transcript()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    header = lines[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == "/srv/app"
    assert header["id"][14] == "7"  # a version-7 UUID, as pi names sessions
    assert [e["type"] for e in lines[1:]] == ["message"] * 3 + [
        "custom_message",
        "message",
        "message",
    ]
    assert lines[1]["parentId"] is None
    assert all(lines[i + 1]["parentId"] == lines[i]["id"] for i in range(1, len(lines) - 1))
    assert lines[1]["timestamp"] == "2026-01-01T00:00:00.000Z"  # the message's own time
    assert import_pi_session(out).messages == _transcript()


@needs_pi
def test_pi_reads_what_pi_sdk_writes(tmp_path: Path) -> None:
    out = tmp_path / "new.jsonl"
    written = export_pi_session(out, _transcript())
    pi = pi_reads(out)
    assert pi["leafId"] == written.leaf_id and pi["roots"] == 1
    assert pi["context"]["messages"] == [message_data(m, i) for i, m in enumerate(_transcript())]
    assert pi["context"]["model"] == {"provider": "openai", "modelId": "gpt-5"}
    assert pi["parentOfAppended"] == written.leaf_id  # pi continues where pi-sdk stopped


@needs_pi
def test_pi_continues_a_session_pi_sdk_continued(tmp_path: Path) -> None:
    _node("write_pi_sessions.mjs", tmp_path)
    session = import_pi_session(tmp_path / "branched.jsonl")
    transcript = [*session.messages, UserMessage(content="more?", timestamp=1767225606000)]
    written = export_pi_session(tmp_path / "continued.jsonl", transcript, base=session)
    pi = pi_reads(tmp_path / "continued.jsonl")
    assert pi["header"] == session.header
    assert pi["leafId"] == written.leaf_id
    assert pi["context"]["messages"] == [message_data(m, i) for i, m in enumerate(transcript)]
    assert pi["context"]["thinkingLevel"] == "medium"
    assert len(pi["entries"]) == len(session.entries) + 1
    assert [e for e in pi["entries"] if e["type"] == "custom"] == [
        e for e in session.entries if e["type"] == "custom"
    ]


def test_pi_messages_survive_pi_sdk_session_files(
    pi_files: Path, tmp_path: Path, plugin_manager: object
) -> None:
    """Saved in pi-sdk's own format and loaded back, without any registration.

    ``plugin_manager``: no installed plugin (pi-sdk-compaction registers its own type for the
    ``compactionSummary`` role, and a registered type wins over the built-in one).
    """
    session = import_pi_session(pi_files / "compacted.jsonl")
    other = import_pi_session(pi_files / "branched.jsonl")
    messages = [*session.messages, *other.messages]
    save_session(tmp_path / "s.jsonl", messages)
    assert load_session(tmp_path / "s.jsonl").messages == messages


def test_new_summaries_cannot_be_handed_to_pi(tmp_path: Path) -> None:
    summary = PiCompactionSummary(summary="s", tokens_before=1, timestamp=1)
    with pytest.raises(SessionFileError, match="cannot export message 1: a compactionSummary"):
        export_pi_session(tmp_path / "x.jsonl", [UserMessage(content="a"), summary])
    assert not (tmp_path / "x.jsonl").exists()


def test_a_cut_last_line_is_noticed(pi_files: Path, tmp_path: Path) -> None:
    raw = (pi_files / "branched.jsonl").read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(raw[: raw.rindex("°".encode()) + 1])  # inside the last line's "°"
    with pytest.raises(SessionFileError, match="line 14: the file ends inside this line"):
        import_pi_session(cut)
    loaded = import_pi_session(cut, allow_truncated=True)
    assert loaded.truncated and _roles(loaded.messages)[-1] == "user"
    cut.write_bytes(raw[:-30])
    with pytest.raises(SessionFileError, match="line 14: the file ends inside this line"):
        import_pi_session(cut)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty pi session file"),
        ('{"format":"pi-sdk-session","version":1}\n', "pi-sdk session file.*load_session"),
        ('{"type":"session","version":3}\n', r"header \(expected type 'session' and an id\)"),
        ('{"type":"sessions","id":"x"}\n', r"header \(expected type 'session' and an id\)"),
        ('["session"]\n', "line 1: not a pi-coding-agent session header$"),
        ('{"type":"session","version":4,"id":"x"}\n', "pi session version 4 is newer"),
        (
            '{"type":"session","id":"x","version":3}\n{"type":"message"}\n',
            "line 2: a message entry without a string id",
        ),
        (
            '{"type":"session","id":"x","version":3}\nnot json\n{"type":"label","id":"a"}\n',
            "line 2: invalid JSON",
        ),
        (
            '{"type":"session","id":"x","version":3}\n'
            '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z",'
            '"message":{"role":"user","content":[{"type":"audio"}]}}\n',
            r"line 2: invalid user message: content\[0\]: unknown block type 'audio'",
        ),
        (
            '{"type":"session","id":"x","version":3}\n'
            '{"type":"branch_summary","id":"a","parentId":null,"timestamp":"yesterday",'
            '"summary":"s","fromId":"root"}\n',
            "line 2: invalid timestamp 'yesterday'",
        ),
        (  # past Python's int-conversion limit (sys.get_int_max_str_digits(), 4,300 digits)
            '{"type":"session","id":"x","version":3}\n'
            '{"type":"label","id":"a","n":' + "7" * 5_000 + "}\n",
            "line 2: an integer of 5000 digits",
        ),
    ],
)
def test_malformed_pi_files_name_the_line(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SessionFileError, match=fragment) as info:
        import_pi_session(path)
    assert str(info.value).startswith(str(path))


def test_older_versions_are_migrated_as_pi_does(tmp_path: Path) -> None:
    """Version 1 had no tree and said ``hookMessage``; pi-sdk reads it and writes version 3."""
    lines = [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"},
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1},
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {
                "role": "hookMessage",
                "customType": "ext",
                "content": "x",
                "display": False,
                "timestamp": 2,
            },
        },
    ]
    path = tmp_path / "v1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session = import_pi_session(path)
    assert session.header["version"] == 3
    assert session.messages[0] == UserMessage(content="hi", timestamp=1)
    assert session.messages[1] == PiCustomMessage(
        custom_type="ext", content="x", display=False, timestamp=2
    )
    assert session.entries[1]["parentId"] == session.entries[0]["id"]
    export_pi_session(tmp_path / "v3.jsonl", session.messages, base=session)
    assert import_pi_session(tmp_path / "v3.jsonl").messages == session.messages


def _pi_file(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    """A version-3 pi session file holding ``entries`` as one linear path."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"}
    ]
    parent = None
    for number, entry in enumerate(entries):
        lines.append(
            {"id": f"e{number}", "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
            | entry
        )
        parent = f"e{number}"
    path = tmp_path / "model.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


_TOKENS = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
_ANSWER = {
    "type": "message",
    "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-a",
        "stopReason": "stop",
        "timestamp": 2,
        "usage": {**_TOKENS, "totalTokens": 0, "cost": {**_TOKENS, "total": 0}},
    },
}
_SWITCH = {"type": "model_change", "provider": "openai", "modelId": "gpt-b"}


@pytest.mark.parametrize(
    ("entries", "model"),
    [
        ([_ANSWER, _SWITCH], {"provider": "openai", "modelId": "gpt-b"}),
        ([_SWITCH, _ANSWER], {"provider": "anthropic", "modelId": "claude-a"}),
        (
            [_SWITCH, {"type": "label", "targetId": "e0", "label": "x"}],
            {"provider": "openai", "modelId": "gpt-b"},
        ),
        (
            [_SWITCH, {"type": "session_info", "name": "named"}],
            {"provider": "openai", "modelId": "gpt-b"},
        ),
    ],
)
def test_the_model_is_the_last_model_change_or_answer_on_the_path(
    tmp_path: Path, entries: list[dict[str, Any]], model: dict[str, Any]
) -> None:
    """pi's ``buildSessionContext``: the later of a ``model_change`` and an assistant message."""
    assert import_pi_session(_pi_file(tmp_path, *entries)).model == model


def test_a_rewrite_branches_at_the_first_message_that_differs(
    pi_files: Path, tmp_path: Path
) -> None:
    """A message equal again after a change is still on the new branch: it starts at the change."""
    session = import_pi_session(pi_files / "branched.jsonl")
    messages = session.messages  # user, assistant, branch summary, user, assistant
    rewritten = [*messages[:3], UserMessage(content="changed", timestamp=5), messages[4]]
    written = export_pi_session(tmp_path / "rewritten.jsonl", rewritten, base=session)
    assert written.messages == rewritten
    added = written.entries[len(session.entries) :]
    assert [e["message"]["role"] for e in added] == ["user", "assistant"]
    assert added[0]["message"]["content"] == "changed"


def test_the_repr_shows_the_session_not_its_bookkeeping() -> None:
    from pi_sdk._agent.pi_session import PiSession

    session = PiSession(
        header={"type": "session", "id": "s1"},
        leaf_id="e2",
        _lines=['{"raw": "line kept for writing back"}'],
        _sources=["entry-source-id"],
        _fixed=7,
    )
    shown = repr(session)
    assert "'s1'" in shown and "leaf_id='e2'" in shown and "truncated=False" in shown
    for private in ("_lines", "_sources", "_fixed", "line kept", "entry-source-id"):
        assert private not in shown


@pytest.mark.parametrize("count", [3, 300], ids=["short", "past-256"])
def test_a_continued_transcript_read_again_appends_only_its_new_messages(
    tmp_path: Path, count: int
) -> None:
    # The transcript comes back as equal copies (an Agent's messages reloaded from a pi-sdk
    # session file, a deep copy): messages equal to the base's are shared, whatever objects
    # they are, however long the conversation (past CPython's cached small ints).
    first = tmp_path / "first.jsonl"
    talk = [UserMessage(content=f"message {i}", timestamp=1767225600000 + i) for i in range(count)]
    base = export_pi_session(first, talk, cwd="/srv/app")
    again = [m.model_copy(deep=True) for m in base.messages]
    assert again == base.messages and again[0] is not base.messages[0]
    more = UserMessage(content="one more", timestamp=1767225600000 + count)
    written = export_pi_session(tmp_path / "continued.jsonl", [*again, more], base=base)
    assert written.entries[:count] == base.entries
    (added,) = written.entries[count:]
    assert added["parentId"] == base.leaf_id and added["message"]["content"] == "one more"
    assert written.messages == [*talk, more]
