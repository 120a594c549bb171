"""The terminal printer's states and the ``--json`` listener, every line with its style.

:class:`pi_sdk._cli.render.TurnPrinter` on a console that records each print (text, style,
line end, soft wrap, which console): the answer's text on the answer's console, everything
else on the notes console, each note on a line of its own even right after streamed text;
lines never hard-wrapped by rich (the terminal wraps them, a URL copied stays whole); the
thinking shown live (its last six lines, refreshed per delta, then collapsed) only on a real
terminal; an image saved beside the session, or why not; the sources of a text cited only in
the final message (Gemini), each block once; only assistant messages end a call. Also
:class:`pi_sdk._cli.render.JsonLines`: one wire-shaped line per event, without partials, and
the missing-key hint on stderr.
"""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

import pi_sdk
from pi_sdk import events
from pi_sdk._cli.render import JsonLines, TurnPrinter, transcript_lines
from pi_sdk._wire.agent_types import (
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnStartEvent,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply
from pi_sdk.types import (
    AssistantMessage,
    Citation,
    ImageContent,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

USAGE = (
    "anthropic/claude-sonnet-4-5 · 0 in · 0 out · $0.000000"
    "  │  session: 1 call · 0 in · 0 out · $0.000000"
)


class Recording:
    """A console that records what is printed on it: ``(name, text, style, end, soft_wrap)``."""

    def __init__(self, name: str, log: list[tuple[Any, ...]], terminal: bool = False) -> None:
        self.name, self.log = name, log
        self.is_terminal, self.is_dumb_terminal = terminal, False

    def print(self, *objects: Any, end: str = "\n", soft_wrap: bool = False, **_: Any) -> None:
        text = objects[0] if objects else None
        plain, style = (text.plain, str(text.style)) if text is not None else ("", "")
        self.log.append((self.name, plain, style, end, soft_wrap))


class FakeLive:
    """``rich.live.Live``, recording how it was made and what it showed."""

    made: list[FakeLive] = []

    def __init__(self, **options: Any) -> None:
        self.options, self.shown, self.state = options, list[tuple[str, str, bool]](), "new"
        FakeLive.made.append(self)

    def start(self) -> None:
        self.state = "started"

    def stop(self) -> None:
        self.state = "stopped"

    def update(self, renderable: Any, refresh: bool = False) -> None:
        self.shown.append((renderable.plain, str(renderable.style), refresh))


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> type[FakeLive]:
    FakeLive.made = []
    monkeypatch.setattr("rich.live.Live", FakeLive)
    return FakeLive


def _printer(
    terminal: bool = False, **options: Any
) -> tuple[TurnPrinter, list[tuple[Any, ...]], Recording]:
    log: list[tuple[Any, ...]] = []
    notes = Recording("notes", log, terminal)
    printer = TurnPrinter(Recording("answer", log), notes=notes, **options)  # type: ignore[arg-type]
    return printer, log, notes


def _reply(*content: Any, **fields: Any) -> AssistantMessage:
    return AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        content=list(content),
        **fields,
    )


def _update(inner: Any) -> MessageUpdateEvent:
    return MessageUpdateEvent(message=inner.partial, assistant_message_event=inner)


def test_each_note_starts_a_line_even_right_after_streamed_text():
    printer, log, _ = _printer()
    final = _reply(TextContent(text="Paris is"), stop_reason="error", error_message="overloaded")
    printer(_update(events.TextDeltaEvent(content_index=0, delta="Paris ", partial=final)))
    printer(_update(events.TextDeltaEvent(content_index=0, delta="is", partial=final)))
    printer(MessageEndEvent(message=final))
    assert log == [
        ("answer", "Paris ", "", "", True),
        ("answer", "is", "", "", True),
        ("answer", "", "", "\n", False),  # the streamed line ends before the note
        ("notes", "✘ error: overloaded", "red", "\n", True),
        ("notes", USAGE, "dim", "\n", True),
    ]


def test_text_that_ended_with_a_newline_needs_no_extra_one():
    printer, log, _ = _printer()
    final = _reply(TextContent(text="Done.\n"), stop_reason="aborted")
    printer(_update(events.TextDeltaEvent(content_index=0, delta="Done.\n", partial=final)))
    printer(MessageEndEvent(message=final))
    assert log == [
        ("answer", "Done.\n", "", "", True),
        ("notes", "✘ the answer was aborted", "yellow", "\n", True),
        ("notes", USAGE, "dim", "\n", True),
    ]


def test_every_line_has_its_style_and_none_is_hard_wrapped():
    printer, log, _ = _printer()
    call = ToolCall(id="c1", name="fetch", arguments={"url": "https://a.example/" + "p" * 300})
    failed = ServerToolResult(tool_call_id="w", kind="web_fetch_tool_result", error="too_large")
    found = ServerToolResult(
        tool_call_id="w", kind="web_search_tool_result", content=[{"url": "https://a.example/"}]
    )
    final = _reply(call, failed, found)
    printer(_update(events.ToolCallEndEvent(content_index=0, tool_call=call, partial=final)))
    printer(
        _update(
            events.ServerToolResultEvent(content_index=1, server_tool_result=failed, partial=final)
        )
    )
    printer(
        _update(
            events.ServerToolResultEvent(content_index=2, server_tool_result=found, partial=final)
        )
    )
    arguments = json.dumps(call.arguments)
    assert log == [
        ("notes", f"→ fetch {arguments[:199]}…", "cyan", "\n", True),
        ("notes", "⌕ web_fetch_tool_result: error too_large", "red", "\n", True),
        ("notes", "⌕ web_search_tool_result: 1 source", "dim cyan", "\n", True),
        ("notes", "  https://a.example/", "dim", "\n", True),
    ]


def test_a_call_s_arguments_keep_their_non_ascii_characters():
    printer, log, _ = _printer()
    call = ToolCall(id="c1", name="weather", arguments={"city": "Zürich", "note": "☂ 雨"})
    final = _reply(call)
    printer(_update(events.ToolCallEndEvent(content_index=0, tool_call=call, partial=final)))
    assert log == [("notes", '→ weather {"city": "Zürich", "note": "☂ 雨"}', "cyan", "\n", True)]


def test_thinking_streams_live_on_a_terminal_showing_its_last_six_lines(live: type[FakeLive]):
    printer, log, notes = _printer(terminal=True)
    final = _reply(ThinkingContent(thinking="x"))
    lines = [f"line {n}\n" for n in range(1, 9)]
    printer(_update(events.ThinkingStartEvent(content_index=0, partial=final)))
    for line in lines:
        printer(_update(events.ThinkingDeltaEvent(content_index=0, delta=line, partial=final)))
    (shown,) = live.made
    assert shown.options == {"console": notes, "transient": True, "auto_refresh": False}
    assert shown.state == "started"
    assert shown.shown[0] == ("line 1", "dim italic", True)
    assert shown.shown[-1] == ("\n".join(f"line {n}" for n in range(3, 9)), "dim italic", True)
    assert len(shown.shown) == 8
    printer(
        _update(events.ThinkingEndEvent(content_index=0, content="".join(lines), partial=final))
    )
    assert shown.state == "stopped"
    assert log == [("notes", "▸ thinking: 16 words (/thinking shows it)", "dim italic", "\n", True)]
    assert printer.last_thinking == "".join(lines)


@pytest.mark.parametrize("dumb", [False, True])
def test_without_a_real_terminal_thinking_is_only_collapsed(live: type[FakeLive], dumb: bool):
    printer, log, notes = _printer(terminal=dumb, thinking_hint=False)
    notes.is_dumb_terminal = dumb
    final = _reply(ThinkingContent(thinking="a b"))
    printer(_update(events.ThinkingStartEvent(content_index=0, partial=final)))
    printer(_update(events.ThinkingDeltaEvent(content_index=0, delta="a b", partial=final)))
    printer(_update(events.ThinkingEndEvent(content_index=0, content="a b", partial=final)))
    assert live.made == []
    assert log == [("notes", "▸ thinking: 2 words", "dim italic", "\n", True)]


@pytest.mark.parametrize(
    ("data", "line", "style"),
    [
        ("iVBORw==", "🖼 image/png image, 0 KiB, saved to {folder}/talk-image-1.png", "cyan"),
        (
            "not base64!",
            "🖼 image/png image not saved: the image/png image's data is not base64",
            "red",
        ),
    ],
)
def test_an_image_the_model_made_is_saved_beside_the_session_or_says_why_not(
    tmp_path: Path, data: str, line: str, style: str
):
    printer, log, _ = _printer(session_file=lambda: tmp_path / "talk.jsonl")
    image = ImageContent(data=data, mime_type="image/png")
    printer(_update(events.ImageEvent(content_index=0, image=image, partial=_reply(image))))
    assert log == [("notes", line.format(folder=tmp_path), style, "\n", True)]


def test_an_image_that_cannot_be_written_says_why(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    printer, log, _ = _printer(session_file=lambda: blocker / "talk.jsonl")
    image = ImageContent(data="iVBORw==", mime_type="image/png")
    printer(_update(events.ImageEvent(content_index=0, image=image, partial=_reply(image))))
    ((where, text, style, _, _),) = log
    assert (where, style) == ("notes", "red")
    reason = f"[Errno {errno.EEXIST}] {os.strerror(errno.EEXIST)}: '{blocker}'"
    assert text == f"🖼 image/png image not saved: {reason}"


def test_sources_cited_only_in_the_final_message_are_printed_once_per_block():
    printer, log, _ = _printer()
    early = TextContent(text="A.", citations=[Citation(type="url", url="https://e.example/")])
    late = TextContent(text="B.", citations=[Citation(type="url", url="https://l.example/")])
    final = _reply(early, late)
    printer(_update(events.TextEndEvent(content_index=0, content="A.", partial=final)))
    printer(MessageEndEvent(message=final))
    assert [(text, style) for _, text, style, _, _ in log] == [
        ("  [source] https://e.example/", "dim"),
        ("  [source] https://l.example/", "dim"),
        (USAGE, "dim"),
    ]


def test_the_broken_pipe_the_printer_raises_is_the_systems_own():
    out = io.StringIO()
    from rich.console import Console

    console = Console(file=out)
    TurnPrinter(console)
    with pytest.raises(BrokenPipeError) as raised:
        console.on_broken_pipe()  # type: ignore[attr-defined]
    assert raised.value.errno == errno.EPIPE


def test_only_an_assistant_message_ends_a_call():
    printer, log, _ = _printer()
    question = UserMessage(content="hi")
    result = ToolResultMessage(tool_call_id="c", tool_name="t", content=[], is_error=False)
    reply = _reply(TextContent(text="Hi!"))
    for event in [
        AgentStartEvent(),
        TurnStartEvent(),
        MessageStartEvent(message=question),
        MessageEndEvent(message=question),
        MessageStartEvent(message=reply),
        MessageEndEvent(message=result),
    ]:
        printer(event)
    assert log == []
    printer(MessageEndEvent(message=reply))
    assert log == [("notes", USAGE, "dim", "\n", True)]


def test_a_replayed_tool_result_is_cut_at_160_characters():
    result = ToolResultMessage(
        tool_call_id="c", tool_name="t", content=[TextContent(text="r" * 200)], is_error=False
    )
    assert transcript_lines([result]) == [("✔ t → " + "r" * 159 + "…", "dim")]


# --- --json ----------------------------------------------------------------------------------


async def _json_run(notes: io.StringIO | None, reply: ScriptedReply | str) -> list[str]:
    provider = ScriptedProvider([reply])
    agent = pi_sdk.Agent(model=provider.model)
    out = io.StringIO()
    agent.subscribe(JsonLines(out, notes))
    await agent.prompt("hi")
    return out.getvalue().split("\n")


async def test_json_lines_are_one_wire_event_per_line_without_partials():
    lines = await _json_run(None, ScriptedReply.text("Hi!", chunk_size=0))
    assert lines[-1] == ""  # every line ends
    records = [json.loads(line) for line in lines[:-1]]
    assert [r["type"] for r in records] == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",
        "message_update",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    updates = [r["assistantMessageEvent"] for r in records if r["type"] == "message_update"]
    assert [u["type"] for u in updates] == ["text_start", "text_delta", "text_end"]
    assert all("partial" not in u for u in updates)


NO_KEY = (
    "No API key for provider 'anthropic': set ANTHROPIC_API_KEY or pass api_key"
    " (StreamOptions.api_key)"
)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            NO_KEY,
            "pi-sdk: error: no API key for provider 'anthropic': store one with `pi-sdk keys set"
            " anthropic`, or set ANTHROPIC_API_KEY\n",
        ),
        ("overloaded", ""),
    ],
)
async def test_json_mode_says_how_to_store_a_missing_key_on_stderr_only(error: str, said: str):
    notes = io.StringIO()
    lines = await _json_run(notes, ScriptedReply.failure(error))
    assert notes.getvalue() == said
    assert json.loads(lines[-2])["messages"][-1]["errorMessage"] == error  # the data keeps it


async def test_json_mode_without_a_notes_stream_writes_only_the_events():
    lines = await _json_run(None, ScriptedReply.failure(NO_KEY))
    assert json.loads(lines[-2])["type"] == "agent_end"


def test_json_mode_hints_only_for_an_assistant_error():
    notes = io.StringIO()
    listener = JsonLines(io.StringIO(), notes)
    listener(MessageEndEvent(message=UserMessage(content=NO_KEY)))
    listener(MessageEndEvent(message=_reply(stop_reason="stop", error_message=NO_KEY)))
    listener(MessageEndEvent(message=_reply(stop_reason="error")))
    assert notes.getvalue() == ""


@pytest.mark.parametrize(
    ("length", "size"),
    [(4096, "3 KiB"), (1368, "1 KiB"), (1364, "0 KiB"), (1_365_336, "1,000 KiB")],
)
def test_an_images_size_is_its_decoded_bytes_in_whole_kib(length: int, size: str):
    # base64: 4 characters hold 3 bytes; 1,368 characters are 1,026 bytes, 1,364 are 1,023
    printer, log, _ = _printer()
    image = ImageContent(data="A" * length, mime_type="image/png")
    printer(_update(events.ImageEvent(content_index=0, image=image, partial=_reply(image))))
    assert log == [
        ("notes", f"🖼 image/png image, {size} (kept in the transcript)", "cyan", "\n", True)
    ]
