"""``pi-sdk chat`` in a pseudo-terminal against loopback vendors (docs/cli.md)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

from _support.cli import PROMPT, ThreadedLoopback, ask, cli_env, pexpect, spawn, vendor_env
from _support.loopback import Step, sse_step
from _support.wire import Call, Calls, Text, Thinking, Tokens, wire_for

ANTHROPIC, RESPONSES = "anthropic-messages", "openai-responses"
TOOLS = str(Path(__file__).parents[1] / "_support" / "cli_tools.py") + ":sleep"


def _reply(api: str, *blocks: Text | Thinking | Calls) -> Step:
    body, terminal = wire_for(api).events(list(blocks), Tokens())
    return sse_step(body + terminal)


def _keys() -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-anthropic-key", "OPENAI_API_KEY": "test-openai-key"}


def _texts(body: bytes) -> str:
    """Every string in a JSON request body, joined (where the history's words can be found)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():  # pyright: ignore[reportUnknownVariableType]
                walk(item)
        elif isinstance(value, list):
            for item in value:  # pyright: ignore[reportUnknownVariableType]
                walk(item)

    walk(json.loads(body))
    return "\n".join(found)


def test_model_switch_across_wire_apis_carries_the_history(tmp_path: Path):
    first = _reply(ANTHROPIC, Thinking(("The user ", "greets me.")), Text(("Hello ", "there!")))
    second = _reply(RESPONSES, Text(("Bonjour", " again")))
    with ThreadedLoopback([first]) as anthropic, ThreadedLoopback([second]) as openai:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        env.update(vendor_env(RESPONSES, openai))
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5"], env)
        child.expect(PROMPT)
        ask(
            child,
            "say hi",
            "▸ thinking: 4 words",
            "Hello there!",
            r"session: 1 call · 5 in · 3 out · \$",
        )
        ask(child, "/thinking", "The user greets me.")  # the collapsed thinking, whole
        ask(
            child,
            "/model openai/gpt-5",
            "history carried over to openai/gpt-5 \\(openai-responses\\): 2 messages;",
            "1 thinking block from anthropic/claude-sonnet-4-5 sent as text",
        )
        ask(child, "and in French?", "Bonjour again", "session: 2 calls · 10 in · 6 out")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert len(anthropic.bodies) == 1 and len(openai.bodies) == 1
        sent = _texts(openai.bodies[0])
        for part in ("say hi", "Hello there!", "and in French?"):
            assert part in sent  # the first vendor's turn reached the second
        assert "The user greets me." not in sent  # its thinking dropped (pi-ai 1.6's default)


def test_save_quit_and_continue_show_and_send_the_history(tmp_path: Path):
    answers = [
        _reply(ANTHROPIC, Text(("Paris", "."))),
        _reply(ANTHROPIC, Text(("2.1", " million"))),
    ]
    with ThreadedLoopback(answers) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5"], env)
        child.expect(PROMPT)
        ask(child, "Capital of France?", "Paris.")
        child.sendline("/save")
        child.expect(r"saved 2 messages to (\S+\.jsonl)")
        saved = Path(child.match.group(1))
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        assert saved.parent == tmp_path / "data" / "pi-sdk" / "sessions"
        header = json.loads(saved.read_text(encoding="utf-8").splitlines()[0])
        assert header["metadata"]["model"] == "anthropic/claude-sonnet-4-5"

        child = spawn(["chat", "--continue"], env)  # no -m: the session's model
        child.expect("anthropic/claude-sonnet-4-5 · reasoning off")
        child.expect(f"continuing {saved}: 2 messages")
        child.expect("you › Capital of France\\?")
        child.expect("claude-sonnet-4-5 › Paris.")
        child.expect(PROMPT)
        ask(child, "And its population?", "2.1 million", "session: 2 calls · 10 in · 6 out")
        child.sendeof()
        child.expect("bye")
        child.expect(pexpect.EOF)
        sent = _texts(anthropic.bodies[1])
        assert "Capital of France?" in sent and "Paris." in sent and "And its population?" in sent
        assert len(saved.read_text(encoding="utf-8").splitlines()) == 5  # header + 4 messages


def test_ctrl_c_aborts_a_slow_tool_and_a_second_one_leaves(tmp_path: Path):
    call = Calls((Call("toolu_1", "sleep", ('{"seconds": 30}',)),))
    with ThreadedLoopback([_reply(ANTHROPIC, call)]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        child = spawn(
            ["chat", "-m", "anthropic/claude-sonnet-4-5", "--tools", TOOLS], env, interrupts=True
        )
        child.expect(PROMPT)
        child.sendline("sleep a while")
        child.expect("⚙ running sleep…")
        pressed = time.monotonic()
        child.sendintr()
        child.expect("\\^C aborting the turn")
        child.expect("turn aborted \\(Ctrl-C\\)")
        elapsed = time.monotonic() - pressed
        assert elapsed < 10, f"the abort took {elapsed:.1f} s; the tool sleeps 30 s"
        child.expect(PROMPT)
        child.sendintr()  # the second Ctrl-C leaves
        child.expect("bye")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert len(anthropic.bodies) == 1  # no model call after the abort
    session = next((tmp_path / "data" / "pi-sdk" / "sessions").glob("*.jsonl"))
    lines = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    results = [entry for entry in lines[1:] if entry["role"] == "toolResult"]
    assert len(results) == 1 and results[0]["isError"]  # the aborted call got an error result


def test_ctrl_c_aborts_a_streaming_answer(tmp_path: Path):
    opening = sse_step(wire_for(ANTHROPIC).opening("Once upon"), end="hang")
    with ThreadedLoopback([opening]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5"], env, interrupts=True)
        child.expect(PROMPT)
        child.sendline("tell me a story")
        child.expect("Once upon")
        child.sendintr()
        child.expect("the answer was aborted")
        child.expect("turn aborted")
        child.expect(PROMPT)
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        deadline = time.monotonic() + 5
        while anthropic.server.client_closes < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert anthropic.server.client_closes == 1  # the vendor saw the stream closed


def test_an_empty_session_file_starts_a_new_session_saved_there(tmp_path: Path):
    session = tmp_path / "new.jsonl"
    session.touch()  # mktemp's file
    with ThreadedLoopback([_reply(ANTHROPIC, Text(("ok",)))]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        args = ["chat", "-m", "anthropic/claude-sonnet-4-5", "--session", str(session)]
        child = spawn(args, env)
        child.expect(PROMPT)
        ask(child, "hi", "ok")
        child.sendeof()
        child.expect(pexpect.EOF)
    assert len(session.read_text(encoding="utf-8").splitlines()) == 3  # header + 2 messages


def test_reasoning_level_is_checked_and_sent(tmp_path: Path):
    with ThreadedLoopback([_reply(ANTHROPIC, Text(("ok",)))]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5"], env)
        child.expect(PROMPT)
        levels = "unknown thinking level 'extreme': valid levels are 'off', 'minimal'"
        ask(child, "/reasoning extreme", levels)
        ask(child, "/reasoning high", "reasoning high")
        ask(child, "think", "ok")
        ask(child, "/nope", "unknown command /nope; /help lists them")
        child.sendeof()
        child.expect(pexpect.EOF)
        assert "thinking" in json.loads(anthropic.bodies[0])


def test_thinking_streams_in_place_on_a_terminal_then_collapses(tmp_path: Path):
    thinking = Thinking(("Step one.\n", "Step two.\n", "Step three."))
    with ThreadedLoopback([_reply(ANTHROPIC, thinking, Text(("Done.",)))]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        env["TERM"] = "xterm-256color"  # cursor-addressable: the live region is used
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5"], env)
        child.expect(PROMPT)
        child.sendline("think first")
        child.expect("Step three.")  # streamed while it lasts
        child.expect("\x1b\\[2K")  # then erased
        child.expect("▸ thinking: 6 words")  # and collapsed to one line
        child.expect("Done.")
        child.expect(PROMPT)
        child.sendeof()
        child.expect(pexpect.EOF)


def test_a_failed_save_is_never_reported_as_saved(tmp_path: Path):
    target = tmp_path / "s.jsonl"
    with ThreadedLoopback([_reply(ANTHROPIC, Text(("Paris.",)))]) as anthropic:
        env = cli_env(tmp_path, **_keys(), **vendor_env(ANTHROPIC, anthropic))
        child = spawn(["chat", "-m", "anthropic/claude-sonnet-4-5", "--session", str(target)], env)
        child.logfile_read = io.StringIO()
        child.expect(PROMPT)
        target.mkdir()  # the save after the turn cannot write there
        ask(child, "Capital of France?", "Paris.", "✘ cannot save the session: .*s.jsonl")
        child.sendline("/quit")
        child.expect(f"✘ NOT saved to {target}: ")
        child.expect("bye")
        child.expect(pexpect.EOF)
        child.close()
    said = child.logfile_read.getvalue()
    assert "saved to" not in said.replace("NOT saved to", "")
    assert child.exitstatus == 1
