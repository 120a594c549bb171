"""pi-sdk-bash-records: the record type, its conversion, run_bash, and an Agent run."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pi_sdk_bash_records
import pytest
from _support.agent import text_of
from pi_sdk_bash_records import BashExecution, bash_execution_to_messages, render, run_bash

from pi_sdk import (
    AbortController,
    Agent,
    UserMessage,
    agent_message_from_dict,
    default_convert_to_llm,
    get_message_types,
)
from pi_sdk.testing import ScriptedProvider


def test_the_record_renders_as_one_user_message():
    ok = BashExecution(command="ls", output="a.py\nb.py\n", exit_code=0, timestamp=5)
    [message] = bash_execution_to_messages(ok)
    assert isinstance(message, UserMessage) and message.timestamp == 5
    assert text_of(message) == "Ran `ls`\n```\na.py\nb.py\n```"

    failed = BashExecution(command="make", output="", exit_code=2)
    assert render(failed) == "Ran `make`\n(no output)\nCommand exited with code 2"
    cut = BashExecution(
        command="yes", output="y", cancelled=True, truncated=True, full_output_path="/tmp/o.log"
    )
    assert render(cut).endswith("(command cancelled)\n[Output truncated. Full output: /tmp/o.log]")
    assert bash_execution_to_messages(BashExecution(command="x", exclude_from_context=True)) == []


def test_the_record_json_uses_camel_case_and_round_trips(plugin_manager):
    plugin_manager.register(pi_sdk_bash_records, name="bash-records")
    record = BashExecution(command="ls", output="x", exit_code=0, full_output_path="/f")
    data = json.loads(record.model_dump_json())
    assert data["role"] == "bashExecution" and data["exitCode"] == 0
    assert data["fullOutputPath"] == "/f" and "exit_code" not in data
    loaded = agent_message_from_dict(data)
    assert isinstance(loaded, BashExecution) and loaded == record


async def test_run_bash_records_output_and_exit_code(tmp_path):
    record = await run_bash("echo out; echo err >&2; exit 3", cwd=tmp_path)
    assert record.exit_code == 3 and not record.cancelled and not record.truncated
    assert record.output.splitlines() == ["out", "err"]
    assert record.command == "echo out; echo err >&2; exit 3"


async def test_run_bash_keeps_the_tail_of_long_output_and_saves_the_rest():
    record = await run_bash("seq 1 2000", max_output_chars=100)
    assert record.truncated and record.exit_code == 0
    assert len(record.output) == 100 and record.output.endswith("1999\n2000\n")
    full = Path(record.full_output_path)
    try:
        assert full.read_text().splitlines() == [str(i) for i in range(1, 2001)]
    finally:
        full.unlink()


async def test_run_bash_stops_on_timeout_and_on_abort():
    record = await run_bash("sleep 30", timeout=0.2)
    assert record.cancelled and record.exit_code is None

    controller = AbortController()
    task = asyncio.ensure_future(run_bash("echo started; sleep 30", signal=controller.signal))
    await asyncio.sleep(0.2)
    controller.abort()
    record = await asyncio.wait_for(task, timeout=10)
    assert record.cancelled and record.exit_code is None
    assert record.output == "started\n"


async def test_in_an_agent_run_the_model_sees_a_user_message_and_the_transcript_keeps_the_record(
    plugin_manager,
):
    plugin_manager.register(pi_sdk_bash_records, name="bash-records")
    record = await run_bash("printf 'FAIL test_x\\n'; exit 1")
    provider = ScriptedProvider(["test_x failed", "ok"])
    agent = Agent(model=provider.model, messages=[record])
    await agent.prompt("why did it fail?")

    seen = provider.calls[0].messages
    assert [m.role for m in seen] == ["user", "user"]
    assert text_of(seen[0]) == "Ran `printf 'FAIL test_x\\n'; exit 1`\n```\nFAIL test_x\n```\n" + (
        "Command exited with code 1"
    )
    transcript = list(agent.messages)
    assert isinstance(transcript[0], BashExecution)
    assert [getattr(m, "role", None) for m in transcript] == ["bashExecution", "user", "assistant"]

    loaded = [agent_message_from_dict(m.model_dump(mode="json")) for m in transcript]
    assert loaded == transcript
    assert default_convert_to_llm(loaded)[0].content == seen[0].content


def test_an_installed_plugin_registers_its_type_lazily_in_a_fresh_process(tmp_path):
    """Entry-point loading, end to end: nothing at import, the type (schema unbuilt) when asked."""
    script = tmp_path / "check.py"
    script.write_text(
        "import sys, pi_sdk\n"
        "assert 'pi_sdk_bash_records' not in sys.modules\n"
        "record_type = pi_sdk.get_message_types()['bashExecution']\n"
        "print(record_type.__pydantic_complete__)\n"  # its schema waits for the first record
        "message = pi_sdk.agent_message_from_dict(\n"
        "    {'role': 'bashExecution', 'command': 'ls', 'output': 'a', 'exitCode': 0})\n"
        "print(type(message).__module__, type(message).__name__)\n"
        "print(pi_sdk.default_convert_to_llm([message])[0].content[0].text.splitlines()[0])\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PI_SDK_LOAD_PLUGINS": "bash-records"}
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "False",
        "pi_sdk_bash_records.record BashExecution",
        "Ran `ls`",
    ]


def test_the_message_type_is_registered_through_the_hook(plugin_manager):
    assert "bashExecution" not in get_message_types()
    plugin_manager.register(pi_sdk_bash_records, name="bash-records")
    assert get_message_types()["bashExecution"] is BashExecution
    plugin_manager.unregister(name="bash-records")
    assert "bashExecution" not in get_message_types()


@pytest.mark.parametrize(
    "bad", [{"role": "bashExecution"}, {"role": "bashExecution", "command": 3}]
)
def test_invalid_records_are_rejected(plugin_manager, bad):
    from pydantic import ValidationError

    plugin_manager.register(pi_sdk_bash_records, name="bash-records")
    with pytest.raises(ValidationError):
        agent_message_from_dict(bad)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to reap it counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("how", ["timeout", "abort"])
async def test_a_stop_kills_a_background_job_the_shell_left_behind(how: str):
    # The shell exits at once; its background job holds the output open until it is killed.
    command = "sleep 60 & echo $!"
    if how == "timeout":
        record = await run_bash(command, timeout=0.5)
    else:
        controller = AbortController()
        task = asyncio.ensure_future(run_bash(command, signal=controller.signal))
        await asyncio.sleep(0.5)
        controller.abort()
        record = await asyncio.wait_for(task, timeout=10)
    assert record.cancelled and record.exit_code is None
    background = int(record.output.split()[0])
    for _ in range(100):  # the kill is sent; the kernel ends the process soon after
        if not _alive(background):
            break
        await asyncio.sleep(0.05)
    assert not _alive(background)


async def _dead(pid: int) -> bool:
    for _ in range(100):  # the kill is sent; the kernel ends the process soon after
        if not _alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("when", ["running", "starting"])
async def test_a_cancelled_run_kills_the_command_and_its_jobs_and_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """The task awaiting ``run_bash`` cancelled (not a timeout or an abort): the process group
    is killed before the cancellation goes on, so nothing the command started outlives the
    caller; also when the cancellation comes while asyncio is still starting the shell (it
    would kill the shell alone)."""
    pid_file = tmp_path / "pid"
    started, finish_start = asyncio.Event(), asyncio.Event()
    real_start = asyncio.create_subprocess_exec

    async def start(*args: Any, **kwargs: Any) -> Any:
        process = await real_start(*args, **kwargs)
        started.set()
        if when == "starting":
            await finish_start.wait()  # the start not yet returned to run_bash
        return process

    monkeypatch.setattr(asyncio, "create_subprocess_exec", start)
    task = asyncio.ensure_future(run_bash(f"sleep 60 & echo $! > {pid_file}; wait"))
    await started.wait()
    for _ in range(400):  # the shell has started its job
        if pid_file.exists() and pid_file.read_text().endswith("\n"):
            break
        await asyncio.sleep(0.025)
    background = int(pid_file.read_text())
    for _ in range(3):  # run_bash goes on to wait for the output
        await asyncio.sleep(0)
    task.cancel()
    await asyncio.sleep(0)
    finish_start.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _dead(background)


@pytest.mark.parametrize(
    ("record", "text"),
    [
        (BashExecution(command="true", exit_code=0), "Ran `true`\n(no output)"),
        (BashExecution(command="x", exit_code=None), "Ran `x`\n(no output)"),
        (
            BashExecution(command="x", output="o\n\n", exit_code=1, cancelled=True),
            "Ran `x`\n```\no\n```\n(command cancelled)",
        ),
        (
            BashExecution(command="x", output="o", exit_code=0, truncated=True),
            "Ran `x`\n```\no\n```\n[Output truncated.]",
        ),
        (
            BashExecution(command="x", exit_code=-9, truncated=True, full_output_path="/p"),
            "Ran `x`\n(no output)\nCommand exited with code -9\n"
            "[Output truncated. Full output: /p]",
        ),
    ],
)
def test_the_status_lines_follow_how_the_command_ended(record, text):
    """A success or an unknown end adds no line; a cancel hides the exit code."""
    assert render(record) == text


async def test_run_bash_passes_the_environment_and_stamps_the_start(tmp_path):
    from pi_sdk import now_ms

    before = now_ms()
    record = await run_bash(
        "echo $PI_SDK_X; cat; pwd", cwd=tmp_path, env={"PI_SDK_X": "given", "PATH": "/bin"}
    )
    assert record.output.splitlines() == ["given", str(tmp_path)]  # stdin is empty: cat ends
    assert record.exit_code == 0 and not record.cancelled
    assert before <= record.timestamp <= now_ms()


@pytest.mark.parametrize(
    ("limit", "output", "truncated"),
    [(6, "12345\n", False), (5, "2345\n", True), (1, "\n", True), (0, "", True)],
)
async def test_run_bash_cuts_output_only_past_the_limit(limit, output, truncated):
    record = await run_bash("echo 12345", max_output_chars=limit)
    assert (record.output, record.truncated) == (output, truncated)
    assert (record.full_output_path is not None) == truncated
    if record.full_output_path:
        full = Path(record.full_output_path)
        try:
            assert full.read_text() == "12345\n" and full.name.startswith("pi-sdk-bash-")
        finally:
            full.unlink()


async def test_an_abort_before_the_command_ends_keeps_no_exit_code_and_a_finished_one_does():
    controller = AbortController()
    record = await run_bash("exit 4", signal=controller.signal, timeout=30)
    assert (record.exit_code, record.cancelled) == (4, False)


async def test_how_a_run_starts_reads_and_waits_for_a_stopped_command(monkeypatch):
    """The run's fixed settings, seen by what it hands asyncio: the shell in its own session
    (a kill reaches its jobs) with no stdin and stderr merged into stdout, the output read
    64 KiB at a time, the caller's timeout for the command, and 5 s for a killed command's
    last output."""
    seen: dict[str, Any] = {"read": set(), "wait_for": []}
    real_exec, real_wait = asyncio.create_subprocess_exec, asyncio.wait
    real_wait_for, real_read = asyncio.wait_for, asyncio.StreamReader.read

    async def create_subprocess_exec(*args: Any, **kwargs: Any) -> Any:
        seen["exec"] = (args, kwargs)
        return await real_exec(*args, **kwargs)

    async def wait(futures: Any, *, timeout: Any = None, return_when: Any = None) -> Any:
        seen["wait"] = (timeout, return_when)
        return await real_wait(futures, timeout=timeout, return_when=return_when)

    def wait_for(future: Any, timeout: Any) -> Any:
        seen["wait_for"].append(timeout)
        return real_wait_for(future, timeout)

    async def read(self: asyncio.StreamReader, n: int = -1) -> bytes:
        seen["read"].add(n)
        return await real_read(self, n)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", create_subprocess_exec)
    monkeypatch.setattr(asyncio, "wait", wait)
    monkeypatch.setattr(asyncio, "wait_for", wait_for)
    monkeypatch.setattr(asyncio.StreamReader, "read", read)
    controller = AbortController()
    controller.abort()
    record = await run_bash("echo hi; sleep 30", signal=controller.signal, timeout=30, shell="sh")
    assert record.cancelled and record.exit_code is None
    args, kwargs = seen["exec"]
    assert args == ("sh", "-c", "echo hi; sleep 30")
    assert {k: v for k, v in kwargs.items() if k not in ("cwd", "env")} == {
        "stdin": asyncio.subprocess.DEVNULL,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT,
        "start_new_session": True,
    }
    assert (kwargs["cwd"], kwargs["env"]) == (None, None)
    assert seen["wait"] == (30, asyncio.FIRST_COMPLETED)
    assert (seen["wait_for"], seen["read"]) == ([5], {65_536})


@pytest.mark.parametrize(("chars", "truncated"), [(50_000, False), (50_001, True)])
async def test_by_default_bash_runs_the_command_and_keeps_50_000_characters(chars, truncated):
    command = f'[ -n "$BASH_VERSION" ] && head -c {chars} /dev/zero | tr "\\0" x'
    record = await run_bash(command)
    try:
        assert pi_sdk_bash_records.DEFAULT_MAX_OUTPUT_CHARS == 50_000
        assert (len(record.output), record.truncated, record.exit_code) == (50_000, truncated, 0)
        assert set(record.output) == {"x"}
    finally:
        if record.full_output_path:
            Path(record.full_output_path).unlink()
