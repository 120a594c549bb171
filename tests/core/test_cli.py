"""The ``pi-sdk`` command: replay, demo, models, and one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from _support import warm_cli

import pi_sdk
from pi_sdk._cli import DEMO_CASSETTE, main


def _cassette(path: Path, uri: str, body: str, response: str, content_type: str) -> Path:
    path.write_text(
        "interactions:\n"
        "- request:\n"
        f"    body: '{body}'\n"
        "    headers: {}\n"
        "    method: POST\n"
        f"    uri: {uri}\n"
        "  response:\n"
        f"    body: {{string: '{response}'}}\n"
        f"    headers: {{content-type: [{content_type}]}}\n"
        "    status: {code: 200, message: OK}\n"
        "version: 1\n",
        encoding="utf-8",
    )
    return path


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``pi-sdk ARGS`` in a child process (forked from a warm server: _support/warm_cli.py)."""
    return warm_cli.run_module(
        "pi_sdk._cli", list(args), {"NO_COLOR": "1", "PATH": "", **env}, timeout=120
    )


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("pi-sdk: warning:")]


def test_demo_streams_thinking_tool_call_and_summary(capsys: pytest.CaptureFixture[str]):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "thinking The user wants the weather in Paris" in out
    assert "tool call get_weather" in out
    assert "stop reason toolUse" in out and "stop reason stop" in out
    assert "input 486 · output 131" in out and "cost       $" in out
    assert "Yes — take an umbrella ☂️" in out
    assert "\033[" not in out  # no colour when not a terminal


def test_colour_can_be_forced(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["replay", str(DEMO_CASSETTE)]) == 0
    assert "\033[" in capsys.readouterr().out


def test_json_lines_are_wire_events_with_interaction(capsys: pytest.CaptureFixture[str]):
    assert main(["replay", "--json", str(DEMO_CASSETTE)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for index in (0, 1):
        mine = [r for r in records if r["interaction"] == index]
        assert mine[0]["type"] == "start" and mine[-1]["type"] == "done"
        final = mine[-1]["message"]
        text = "".join(r["delta"] for r in mine if r["type"] == "text_delta")
        assert text == "".join(b["text"] for b in final["content"] if b["type"] == "text")
        assert all("partial" not in r for r in mine)
    first = [r for r in records if r["interaction"] == 0]
    assert first[-1]["reason"] == "toolUse"
    assert first[-1]["message"]["stopReason"] == "toolUse"  # pi-mono's camelCase wire names
    end = next(r for r in first if r["type"] == "toolcall_end")
    assert end["toolCall"]["arguments"] == {"city": "Paris", "unit": "celsius"}
    assert "contentIndex" in end


def test_models_table_and_json(capsys: pytest.CaptureFixture[str]):
    assert main(["models", "--provider", "anthropic"]) == 0
    out = capsys.readouterr().out
    assert "claude-sonnet-4-5" in out and "$/M in" in out
    assert main(["models", "--provider", "anthropic", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(r["provider"] == "anthropic" and "contextWindow" in r for r in rows)


_MESSAGE = (
    '{"type": "message", "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",'
    ' "content": [{"type": "text", "text": "Hello there"}], "stop_reason": "end_turn",'
    ' "usage": {"input_tokens": 7, "output_tokens": 3}}'
)


def _whole_document_cassette(tmp_path: Path) -> Path:
    """One Anthropic interaction recorded without a stream: the answer is a JSON document."""
    return _cassette(
        tmp_path / "c.yaml",
        "https://api.anthropic.com/v1/messages",
        '{"model": "claude-sonnet-4-5", "stream": false}',
        _MESSAGE.replace("'", "''"),
        "application/json",
    )


def test_non_streamed_interaction_is_played_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["replay", str(_whole_document_cassette(tmp_path))]) == 0
    captured = capsys.readouterr()
    assert "interaction 0" in captured.out and "anthropic-messages" in captured.out
    assert "the recorded answer is a whole JSON document, not a stream" in captured.out
    assert "Hello there" in captured.out and "stop reason stop" in captured.out
    assert "input 7 · output 3" in captured.out


def test_non_streamed_interaction_as_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["replay", "--json", str(_whole_document_cassette(tmp_path))]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]  # stdout: JSON only
    assert [r["type"] for r in records] == [
        "start", "text_start", "text_delta", "text_end", "done",
    ]  # fmt: skip
    assert records[2]["delta"] == "Hello there"
    assert "pi-sdk: note: interaction 0: the recorded answer is a whole JSON document" in (
        captured.err
    )


def test_streamed_interaction_has_no_whole_document_note(capsys: pytest.CaptureFixture[str]):
    assert main(["replay", str(DEMO_CASSETTE)]) == 0
    captured = capsys.readouterr()
    assert "JSON document" not in captured.out + captured.err


@pytest.mark.parametrize("case", ["missing", "directory", "garbage", "unknown_api", "bad_api_flag"])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, case: str):
    args: list[str]
    if case == "missing":
        args = ["replay", str(tmp_path / "nope.yaml")]
    elif case == "directory":
        args = ["replay", str(tmp_path)]
    elif case == "garbage":
        (tmp_path / "g.yaml").write_text("{{{ not yaml", encoding="utf-8")
        args = ["replay", str(tmp_path / "g.yaml")]
    elif case == "unknown_api":
        path = _cassette(
            tmp_path / "u.yaml", "https://llm.example/v9/generate?key=abc123secret",
            '{"stream": true}', "data: {}", "text/event-stream",
        )  # fmt: skip
        args = ["replay", str(path)]
    else:
        args = ["replay", "--api", "no-such-api", str(DEMO_CASSETTE)]
    result = _run(*args)
    assert result.returncode == 2, result
    errors = _errors(result.stderr)
    assert len(errors) == 1 and errors[0].startswith("pi-sdk: error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert "abc123secret" not in result.stderr  # query strings never reach messages


def test_demo_without_the_anthropic_provider_names_the_package_to_install():
    """``pi-sdk demo`` has no ``--api``: the error says what to install instead."""
    result = _run("demo", PI_SDK_LOAD_PLUGINS="openai")
    assert result.returncode == 2 and result.stdout == ""
    [error] = _errors(result.stderr)
    assert error == (
        "pi-sdk: error: `pi-sdk demo` replays a recorded Anthropic stream and needs the"
        " pi-sdk-anthropic provider package, which is not installed"
        " (pip install pi-sdk-anthropic)"
    )


def test_plugins_exit_0_when_all_load(capsys: pytest.CaptureFixture[str]):
    assert main(["plugins"]) == 0
    assert "failed to load" not in capsys.readouterr().out


def test_the_summary_counts_only_visible_thinking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """A redacted block's placeholder text is not thinking the user can read: not counted."""
    message = (
        '{"type": "message", "id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",'
        ' "content": [{"type": "thinking", "thinking": "abcd", "signature": "sig"},'
        ' {"type": "redacted_thinking", "data": "opaque-blob"},'
        ' {"type": "text", "text": "Hi"}], "stop_reason": "end_turn",'
        ' "usage": {"input_tokens": 7, "output_tokens": 3}}'
    )
    path = _cassette(
        tmp_path / "t.yaml",
        "https://api.anthropic.com/v1/messages",
        '{"model": "claude-sonnet-4-5", "stream": false}',
        message,
        "application/json",
    )
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 blocks, 4 chars, 1 redacted, signature present" in out


def test_the_summary_shows_arguments_that_were_not_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """A call whose argument text is not JSON is shown as sent, not as the ``{}`` it replays as."""
    import yaml

    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message",
         "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
         "usage": {"input_tokens": 5, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"path": }}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 4}},
        {"type": "message_stop"},
    ]  # fmt: skip
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    interaction = {
        "request": {
            "body": '{"model": "claude-sonnet-4-5", "stream": true}',
            "headers": {},
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
        },
        "response": {
            "body": {"string": body},
            "headers": {"content-type": ["text/event-stream"]},
            "status": {"code": 200, "message": "OK"},
        },
    }
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}), "utf-8")
    assert main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    [call] = [line for line in lines if line.startswith("  tool call")]
    assert call == (
        '  tool call  read {"path": }}  (arguments not valid: Expecting value: line 1'
        " column 10 (char 9))  (id toolu_1)"
    )


def test_counts_agree_with_their_nouns(plugin_manager, capsys: pytest.CaptureFixture[str]):
    import pi_sdk

    pi_sdk.register_model(pi_sdk.Model(id="solo-1", api="solo-api", provider="solo"))
    assert main(["models"]) == 0
    assert "1 model · prices in USD per million tokens" in capsys.readouterr().out
    pi_sdk.register_model(pi_sdk.Model(id="solo-2", api="solo-api", provider="solo"))
    assert main(["models"]) == 0
    assert "2 models · prices" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("invalid", "shown"),
    [
        (None, '{"path": 1,}'),  # only the error's copy of the text: shown from there
        ('{"path": 1,}', '{"path": 1,}'),
        ('{"path": 2,}', '{"path": 2,}'),  # the call's own raw text wins
    ],
)
def test_a_call_s_arguments_that_were_not_valid_are_shown_as_sent(
    invalid: str | None, shown: str
) -> None:
    from pi_sdk._cli.common import Style
    from pi_sdk._cli.replay import _summary  # noqa: PLC2701 - the summary lines alone

    error = 'Expecting value: line 1 column 12\nmore\n\nReceived arguments:\n{"path": 1,}'
    call = pi_sdk.ToolCall(
        id="t1", name="read", arguments={}, arguments_error=error, invalid_arguments=invalid
    )
    message = pi_sdk.AssistantMessage(
        api="anthropic-messages", provider="anthropic", model="m", content=[call],
        stop_reason="toolUse",
    )  # fmt: skip
    [line] = [x for x in _summary(message, Style(False)) if x.startswith("  tool call")]
    assert line == (
        f"  tool call  read {shown}  (arguments not valid: Expecting value: line 1 column 12)"
        "  (id t1)"
    )


def test_non_ascii_text_stays_as_it_is_in_json_lines_and_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    message = (
        _MESSAGE.replace("Hello there", "Café ✓")
        .replace('"stop_reason": "end_turn"', '"stop_reason": "tool_use"')
        .replace(
            '{"type": "text", "text": "Café ✓"}',
            '{"type": "text", "text": "Café ✓"}, {"type": "tool_use", "id": "t1",'
            ' "name": "find", "input": {"city": "Zürich"}}',
        )
    )
    path = _cassette(
        tmp_path / "c.yaml",
        "https://api.anthropic.com/v1/messages",
        '{"model": "claude-sonnet-4-5", "stream": false}',
        message.replace("'", "''"),
        "application/json",
    )
    assert main(["replay", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert '"delta":"Café ✓"' in out.replace('": "', '":"') and "\\u" not in out
    assert main(["replay", str(path)]) == 0
    summary = capsys.readouterr().out
    assert '{"city": "Zürich"}' in summary and "\\u" not in summary
