"""``pi-sdk prompt``, ``--json``, ``--version`` and the one-line input errors."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env, pexpect, run_cli, spawn, vendor_env
from _support.loopback import Step, json_step, sse_step, text_reply
from _support.wire import Call, Calls, Text, Thinking, Tokens, wire_for

from pi_sdk._cli import main

MODEL = ["-m", "anthropic/claude-sonnet-4-5"]


def _env(tmp_path: Path, server: ThreadedLoopback) -> dict[str, str]:
    return cli_env(
        tmp_path, ANTHROPIC_API_KEY="test-key", **vendor_env("anthropic-messages", server)
    )


def test_prompt_streams_the_answer_to_stdout_and_usage_to_stderr(tmp_path: Path):
    with ThreadedLoopback([text_reply("anthropic-messages", "Hello there!")]) as server:
        done = run_cli(["prompt", *MODEL, "say", "hi"], _env(tmp_path, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello there!\n"
    assert "anthropic/claude-sonnet-4-5 · 5 in · 3 out · $0.000060" in done.stderr
    body = json.loads(server.bodies[0])
    assert body["messages"][0]["content"][0]["text"] == "say hi"


def test_prompt_collapses_thinking_without_naming_the_chat_only_command(tmp_path: Path):
    wire = wire_for("anthropic-messages")
    body, terminal = wire.events([Thinking(("Let me ", "think.")), Text(("Done.",))], Tokens())
    with ThreadedLoopback([sse_step(body + terminal)]) as server:
        done = run_cli(["prompt", *MODEL, "-r", "low", "hi"], _env(tmp_path, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    assert "▸ thinking: 3 words\n" in done.stderr
    assert "/thinking" not in done.stderr  # prompt has no commands


def test_prompt_reads_stdin_and_json_prints_agent_events_in_pi_shape(tmp_path: Path):
    with ThreadedLoopback([text_reply("anthropic-messages", "Hello there!")]) as server:
        done = run_cli(["prompt", *MODEL, "--json"], _env(tmp_path, server), stdin="from stdin\n")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "agent_start" and events[-1]["type"] == "agent_end"
    updates = [e for e in events if e["type"] == "message_update"]
    deltas = [e["assistantMessageEvent"] for e in updates]
    assert "".join(d["delta"] for d in deltas if d["type"] == "text_delta") == "Hello there!"
    assert all("partial" not in d for d in deltas)
    end = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert end["stopReason"] == "stop" and end["usage"]["totalTokens"] == 8
    assert json.loads(server.bodies[0])["messages"][0]["content"][0]["text"] == "from stdin\n"


def test_a_vendor_error_ends_with_status_1_and_the_message(tmp_path: Path):
    body, _ = wire_for("anthropic-messages").http_error(400, "prompt is too long")
    with ThreadedLoopback([json_step(400, body)]) as server:
        done = run_cli(["prompt", *MODEL, "hi"], _env(tmp_path, server))
    assert done.returncode == 1
    assert "✘ error:" in done.stderr and "prompt is too long" in done.stderr


def test_retries_show_attempt_reason_and_wait_on_stderr(tmp_path: Path):
    """Issue 31, item 5: a 429 then a 503 before the answer are two lines on stderr, not a pause;
    the answer on stdout is untouched. When every attempt fails, the error says how many."""
    wire = wire_for("anthropic-messages")
    limited = json_step(429, wire.http_error(429, "rate limited")[0], {"retry-after-ms": "10"})
    overloaded = json_step(503, wire.http_error(503, "overloaded")[0])
    with ThreadedLoopback([limited, overloaded, text_reply("anthropic-messages", "Hi!")]) as server:
        done = run_cli(["prompt", *MODEL, "hi"], _env(tmp_path, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hi!\n"
    lines = [line for line in done.stderr.splitlines() if "retrying in" in line]
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("anthropic/claude-sonnet-4-5: attempt 1 of 3 failed (429")
    assert "rate limited" in lines[0] and re.search(r"retrying in \d+\.\d s$", lines[0])
    assert "attempt 2 of 3 failed (503" in lines[1] and "overloaded" in lines[1]

    # the backoff's own waits (0.5 s, 1 s) are above; here the server asks for 10 ms each time
    brief = json_step(503, wire.http_error(503, "overloaded")[0], {"retry-after-ms": "10"})
    with ThreadedLoopback([brief]) as server:
        failed = run_cli(["prompt", *MODEL, "hi"], _env(tmp_path, server))
    assert failed.returncode == 1
    assert "(after 3 attempts)" in failed.stderr
    assert failed.stderr.count("retrying in") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["prompt", "-m", "anthropic/claude-sonet-4-5", "x"],
            "did you mean anthropic/claude-sonnet-4-5,",
        ),
        (["prompt", "-m", "nope/model", "x"], "no models registered for provider 'nope'"),
        (["prompt", "-m", "anthropic", "x"], "a model is PROVIDER/ID"),
        (["prompt", "-m", "anthropic/claude-sonnet-4-5"], "no prompt"),
        (["prompt", "x"], "no model: pass -m PROVIDER/ID"),
        (["chat", "--tools", "no_such_module:x", *MODEL], "cannot import no_such_module"),
        (["chat", "--tools", "json", *MODEL], "--tools takes MODULE:ATTR"),
        (["chat", "--tools", "json:nothing", *MODEL], "json has no attribute 'nothing'"),
        (["chat", "--tools", "json:__name__", *MODEL], "str is not a tool or a function"),
        (
            ["chat", "--tools", "os.path:basename", "--tools", "posixpath:basename", *MODEL],
            "--tools posixpath:basename: a tool named 'basename' is already given (by --tools"
            " os.path:basename); tool names must be unique",
        ),
        (
            ["chat", "--tools", "json:loads", *MODEL],
            "--tools json:loads: tool function loads: *args/**kwargs are not supported",
        ),
        (["models", "--provider", "anthropc"], "did you mean anthropic?"),
    ],
)
def test_input_errors_are_one_line_with_status_2(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no prompt on stdin either
    assert main(args) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("pi-sdk: warning:")]
    assert len(lines) == 1 and lines[0].startswith("pi-sdk: error: ") and message in lines[0]


def test_an_unknown_option_is_named_by_its_subcommand(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        main(["models", "--jsn"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: pi-sdk models" in err
    assert "unrecognized arguments: --jsn (did you mean --json?)" in err


def test_version(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"pi-sdk {metadata.version('pi-sdk-core')}\n"


def test_a_missing_cli_extra_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setitem(sys.modules, "rich", None)  # find_spec("rich") -> None: not installed
    assert main(["chat", *MODEL]) == 2
    err = capsys.readouterr().err
    assert "`pi-sdk chat` needs the cli extra (rich missing)" in err
    assert "pip install 'pi-sdk-core[cli]'" in err


def test_the_docs_tools_file_runs_with_tools_option(tmp_path: Path):
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    code = re.search(r'```python title="my_tools.py"\n(.*?)^```', page, re.M | re.S)
    assert code is not None
    (tmp_path / "my_tools.py").write_text(code.group(1), encoding="utf-8")
    wire = wire_for("anthropic-messages")
    call = Calls((Call("toolu_1", "roll_dice", ('{"sides": ', "1}")),))
    steps = [
        sse_step(sum(wire.events([call], Tokens()), [])),
        text_reply("anthropic-messages", "A one."),
    ]
    with ThreadedLoopback(steps) as server:
        tools = f"{tmp_path / 'my_tools.py'}:tools"
        done = run_cli(["prompt", *MODEL, "--tools", tools, "roll it"], _env(tmp_path, server))
    assert done.returncode == 0, done.stderr
    assert '→ roll_dice {"sides": 1}' in done.stderr and "✔ roll_dice → 1" in done.stderr
    assert done.stdout == "A one.\n"
    sent = json.loads(server.bodies[1])
    assert sent["tools"][0]["name"] == "roll_dice"
    result = sent["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["content"] == "1"


def test_chat_json_reads_prompts_from_stdin_and_writes_only_events(tmp_path: Path):
    replies = [text_reply("anthropic-messages", "One."), text_reply("anthropic-messages", "Two.")]
    with ThreadedLoopback(replies) as server:
        stdin = "first\n/reasoning low\nsecond\n"
        done = run_cli(["chat", *MODEL, "--json"], _env(tmp_path, server), stdin=stdin)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]  # nothing but JSON
    ends = [e["message"] for e in events if e["type"] == "message_end"]
    answers = [m["content"][0]["text"] for m in ends if m["role"] == "assistant"]
    assert answers == ["One.", "Two."]
    assert [e["type"] for e in events].count("agent_end") == 2
    assert (
        "reasoning low" in done.stderr
        and "pi-sdk chat · anthropic/claude-sonnet-4-5" in done.stderr
    )
    assert json.loads(server.bodies[1])["thinking"]["type"] in ("enabled", "adaptive")


def test_chat_suggests_only_close_providers_and_names_models_as_provider_slash_id(tmp_path: Path):
    stdin = "/model nope/x\n/model opnai/gpt-5\n/model anthropic/claude-sonet-4-5\n/help\n"
    done = run_cli(["chat", *MODEL, "--json"], cli_env(tmp_path), stdin=stdin)
    assert done.returncode == 0, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("✘")]
    assert errors[0] == (
        "✘ no models registered for provider 'nope' (`pi-sdk models` lists them)"
    )  # "nope" is not close to "openai": no suggestion
    assert "did you mean openai?" in errors[1]
    assert "did you mean anthropic/claude-sonnet-4-5" in errors[2]
    help_line = next(line for line in done.stderr.splitlines() if line.startswith("/model "))
    assert "below" not in help_line  # /help is a list: nothing follows the /model line


def test_prompt_ctrl_c_says_it_aborts_without_a_second_step(tmp_path: Path):
    opening = sse_step(wire_for("anthropic-messages").opening("Once upon"), end="hang")
    with ThreadedLoopback([opening]) as server:
        child = spawn(
            ["prompt", *MODEL, "tell me a story"], _env(tmp_path, server), interrupts=True
        )
        child.expect("Once upon")
        child.sendintr()
        child.expect("\\^C aborting")
        child.expect(pexpect.EOF)
        said = child.before  # the rest of the Ctrl-C line, and what follows
        child.close()
    assert "again" not in said  # prompt ends with the aborted answer: no second Ctrl-C
    assert child.exitstatus == 130


def _long_answer() -> Step:
    pieces = tuple(f"line {n} of a long answer that fills the pipe\n" for n in range(3_000))
    body, terminal = wire_for("anthropic-messages").events([Text(pieces)], Tokens())
    return sse_step(body + terminal)


@pytest.mark.parametrize(
    "command",
    [["prompt", *MODEL, "--json", "hi"], ["prompt", *MODEL, "hi"], ["models"]],
    ids=["prompt-json", "prompt-text", "models"],
)
def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path, command: list[str]):
    """``pi-sdk prompt --json ... | head -3``: no BrokenPipeError traceback, status 141."""
    with ThreadedLoopback([_long_answer()]) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "pi_sdk._cli", *command],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=_env(tmp_path, server),
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        for _ in range(3):
            assert process.stdout.readline()
        process.stdout.close()  # as `head -3` does once it has its lines
        errors = process.stderr.read()
        assert process.wait(timeout=60) == 141
    # On a loaded machine the answer can start after the CLI's waiting note (10 s, waiting.py):
    # a whole line of its own, not an error. Anything else is.
    errors = re.sub(r"(?m)^\S+: no answer yet after \d+ s \(Ctrl-C aborts\)\n", "", errors)
    assert errors == ""  # no traceback, no BrokenPipeError, no half-printed usage line
