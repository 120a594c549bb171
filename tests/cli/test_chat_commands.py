"""``pi-sdk chat`` in-process: the slash commands' lines, saves, ``--mcp`` servers, exit statuses.

``chat --json`` reads its prompts from stdin and writes its notes on stderr, so the whole loop
runs in the test's process against a scripted model (:class:`pi_sdk.testing.ScriptedProvider`,
registered by hand in a fresh plugin manager), with the data folder the test's own. The
terminal runs (Ctrl-C, the prompt line) are test_chat.py's and test_chat_interrupts.py's.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeAlias

import pytest

import pi_sdk
from pi_sdk._cli import chat as chat_module
from pi_sdk._cli import main
from pi_sdk._plugins.manager import PluginManager
from pi_sdk._testing.scripted import ScriptedProvider


@pytest.fixture
def scripted(
    plugin_manager: PluginManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedProvider]:
    """A scripted model ``scripted/chat-model`` answering "Hi there." to three prompts."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("PI_SDK_MODEL", raising=False)
    provider = ScriptedProvider(["Hi there."] * 3, model_id="chat-model")
    pi_sdk.register_model(provider.model)
    yield provider


Chat: TypeAlias = Callable[..., tuple[int, str, list[str]]]


@pytest.fixture
def chat(
    scripted: ScriptedProvider, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Chat:
    """``chat(stdin, *ARGS)``: ``pi-sdk chat --json -m scripted/chat-model ARGS``, its
    (status, stdout, notes)."""

    def run(stdin: str, *args: str) -> tuple[int, str, list[str]]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        status = main(["chat", "--json", "-m", "scripted/chat-model", *args])
        out, err = capsys.readouterr()
        return status, out, err.splitlines()

    return run


def test_commands_without_a_turn_each_say_one_line_and_an_asked_save_writes_the_file(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / "s.jsonl"
    commands = "/model\n/reasoning\n/reasoning sideways\n/thinking\n/nope x\n\n   \n/save\n/quit\n"
    status, out, notes = chat(commands, "--session", str(session))
    assert status == 0
    assert out == ""
    assert notes[0] == (
        f"pi-sdk chat · scripted/chat-model · reasoning off · session {session} · /help lists"
        " the commands"
    )
    assert notes[1:5] == [
        "model scripted/chat-model (scripted)",
        "reasoning off",
        notes[3],
        "(no thinking in the last answer)",
    ]
    assert notes[3].startswith("✘ ") and "sideways" in notes[3]
    assert notes[5:] == [
        "unknown command /nope; /help lists them",
        f"saved 0 messages to {session}",
        "bye",
    ]
    # /save was asked for: the session file is written with no messages yet, and reopens so
    assert pi_sdk.load_session(session).messages == []


def test_a_turn_is_saved_counted_and_said_at_the_end(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / "s.jsonl"
    other = tmp_path / "other.jsonl"
    stdin = f"hello\n/reasoning high\n/save {other}\n/exit\nnot read\n"
    status, out, notes = chat(stdin, "--session", str(session))
    assert status == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "agent_start" and events[-1]["type"] == "agent_end"
    # JSON mode has no turn printer to count the session's calls: no "session: ..." line
    assert notes[1:] == ["reasoning high", f"saved 2 messages to {other}", "bye"]
    assert len(scripted.calls) == 1
    assert session.is_file() and other.is_file()  # the turn autosaved, /save FILE moved on


def test_a_failed_save_is_said_and_the_exit_status_is_1(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def save_session(path: Path, *args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(chat_module, "save_session", save_session)
    session = tmp_path / "s.jsonl"
    stdin = f"hello\n/save {tmp_path / 'x.jsonl'}\n/model\n"
    status, _, notes = chat(stdin, "--session", str(session))
    assert status == 1
    assert notes[1:] == [
        "✘ cannot save the session: [Errno 28] No space left on device",
        "✘ cannot save: [Errno 28] No space left on device",
        "model scripted/chat-model (scripted)",
        f"✘ NOT saved to {session}: [Errno 28] No space left on device",
        "bye",
    ]


def test_a_session_in_a_missing_folder_is_status_2(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / "missing" / "s.jsonl"
    status, out, notes = chat("hello\n", "--session", str(session))
    assert (status, out) == (2, "")
    assert notes == [
        f"pi-sdk: error: --session {session}: the folder {session.parent} does not exist"
    ]
    assert scripted.calls == []


def test_a_closed_stdout_ends_the_chat_with_status_141_and_no_goodbye(
    scripted: ScriptedProvider, chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    class _Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    monkeypatch.setattr("sys.stdout", _Gone())
    status, _, notes = chat("hello\nsecond prompt, never sent\n")
    assert status == 141
    assert "bye" not in notes
    assert len(scripted.calls) < 2  # the second prompt was never sent


def test_session_and_continue_exclude_each_other(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, notes = chat("", "--session", str(tmp_path / "s"), "-c")
    assert (status, out) == (2, "")
    assert notes == ["pi-sdk: error: --session and --continue exclude each other"]


def test_mcp_servers_start_before_the_first_prompt_and_stop_at_the_end(
    scripted: ScriptedProvider, chat: Chat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    class _Servers:
        def __init__(self, config: str, agent: Any, note: Any) -> None:
            seen.append(("made", config, agent.model.id))
            note("servers made")

        def start(self, loop: Any) -> None:
            seen.append(("start", len(scripted.calls)))

        def stop(self, loop: Any) -> None:
            seen.append(("stop", len(scripted.calls), loop.is_closed()))

    options: list[str] = []

    def mcp_cli(option: str) -> Any:
        options.append(option)
        return type("Cli", (), {"ChatServers": _Servers})

    monkeypatch.setattr(chat_module, "mcp_cli", mcp_cli)
    status, _, notes = chat("hello\n", "--mcp", "servers.json")
    assert status == 0
    assert options == ["--mcp"]
    assert seen == [("made", "servers.json", "chat-model"), ("start", 0), ("stop", 1, False)]
    assert notes[0] == "servers made"
    assert notes[-1] == "bye"


@pytest.mark.parametrize(
    ("saved", "shown"),
    [("high", "high"), ("minimal", "minimal"), ("ultra", "off"), (7, "off"), (None, "off")],
)
def test_a_resumed_session_takes_its_saved_reasoning_level_only_when_it_is_one(
    saved: Any, shown: str, chat: Chat, tmp_path: Path
) -> None:
    session = tmp_path / "s.jsonl"
    metadata: dict[str, Any] = {"model": "scripted/chat-model"}
    if saved is not None:
        metadata["thinking_level"] = saved
    pi_sdk.save_session(session, [pi_sdk.UserMessage(content="earlier")], metadata=metadata)
    status, _, notes = chat("/quit\n", "--session", str(session))
    assert status == 0
    assert f"· reasoning {shown} ·" in notes[0]
