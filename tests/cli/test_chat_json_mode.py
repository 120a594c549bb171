"""``pi-sdk chat --json``: prompts from stdin, one per line; notes never on stdout (issue 34).

In JSON mode stdout carries only the agent's events as JSON lines (a program reads them), so
every note (the banner, "bye", Ctrl-C hints, save errors) goes to the notes console, which
``chat`` opens on stderr; on a terminal the notes go through the turn printer, between the
answers. The prompt is read from stdin without the ``you ›`` prompt, and an empty read is the
end of input.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from pi_sdk._cli import chat as chat_module


class _Recorder:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def print(self, text: str, **kwargs: Any) -> None:
        self.lines.append((text, kwargs.get("style", "")))

    def note(self, text: str, style: str) -> None:
        self.lines.append((text, style))


def _chat(as_json: bool) -> Any:
    chat: Any = chat_module._Chat.__new__(chat_module._Chat)  # pyright: ignore[reportPrivateUsage]
    chat.as_json, chat.notes, chat.printer = as_json, _Recorder(), _Recorder()
    return chat


@pytest.mark.parametrize("as_json", [True, False])
def test_notes_go_to_the_notes_console_only_in_json_mode(as_json: bool) -> None:
    chat = _chat(as_json)
    chat.note("saved", "bold")
    chat.note("plain")
    shown = [("saved", "bold"), ("plain", "dim")]
    assert (chat.notes.lines, chat.printer.lines) == ((shown, []) if as_json else ([], shown))


def test_json_mode_reads_stdin_lines_until_it_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("first\nsecond line\n"))
    monkeypatch.setattr("builtins.input", lambda prompt="": pytest.fail("input() in JSON mode"))
    chat = _chat(True)
    assert chat._read() == "first"
    assert chat._read() == "second line"
    with pytest.raises(EOFError):
        chat._read()


def test_a_terminal_reads_with_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or "hi")
    assert _chat(False)._read() == "hi"
    assert asked == ["you › "]
