"""``pi-sdk keys``: owner-only storage, served through ``get_api_key``, never printed."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env, pexpect, run_cli, spawn, vendor_env
from _support.loopback import text_reply

KEY = "pi-test-SECRET-do-not-print-0123456789"


def test_keys_set_from_a_hidden_prompt_writes_an_owner_only_file(tmp_path: Path):
    env = cli_env(tmp_path)
    captured: list[str] = []
    child = spawn(["keys", "set", "anthropic"], env)
    child.expect("API key for anthropic \\(not shown\\): ")
    captured.append(child.before + child.after)
    child.sendline(KEY)
    child.expect(pexpect.EOF)
    captured.append(child.before)
    child.close()
    assert child.exitstatus == 0
    folder = tmp_path / "config" / "pi-sdk"
    keys = folder / "keys.json"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert json.loads(keys.read_text(encoding="utf-8")) == {"anthropic": KEY}
    assert "stored the key for anthropic" in captured[-1]
    assert all(KEY not in text for text in captured)  # getpass does not echo it


def test_a_stored_key_is_used_listed_by_source_and_removed_without_being_printed(tmp_path: Path):
    env = cli_env(tmp_path, OPENAI_API_KEY="sk-openai-from-env")
    outputs: list[str] = []

    def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
        done = run_cli(args, env, stdin)
        outputs.extend((done.stdout, done.stderr))
        return done

    assert run(["keys", "set", "anthropic"], stdin=KEY + "\n").returncode == 0
    listed = run(["keys", "list"])
    assert listed.returncode == 0
    rows = dict(line.split(None, 1) for line in listed.stdout.splitlines())
    assert rows["anthropic"].startswith("keys file")
    assert rows["openai"] == "environment or plugin"

    with ThreadedLoopback([text_reply("anthropic-messages", "Hi!")]) as server:
        env.update(vendor_env("anthropic-messages", server))
        answered = run(["prompt", "-m", "anthropic/claude-sonnet-4-5", "hello"])
        assert answered.returncode == 0, answered.stderr
        assert answered.stdout == "Hi!\n"
        headers = server.server.headers[0]
        sent = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        assert sent == KEY  # through the get_api_key hook

    assert run(["keys", "remove", "anthropic"]).returncode == 0
    assert "anthropic" not in run(["keys", "list"]).stdout
    again = run(["keys", "remove", "anthropic"])
    assert again.returncode == 1 and "no stored key for provider 'anthropic'" in again.stderr
    assert outputs and all(KEY not in text for text in outputs)


def test_keys_set_refuses_an_unknown_provider_and_an_empty_key(tmp_path: Path):
    env = cli_env(tmp_path)
    typo = run_cli(["keys", "set", "antropic"], env, stdin=KEY + "\n")
    assert typo.returncode == 2
    assert "no models registered for provider 'antropic'; did you mean anthropic?" in typo.stderr
    empty = run_cli(["keys", "set", "anthropic"], env, stdin="\n")
    assert empty.returncode == 2 and "no key given" in empty.stderr
    assert not (tmp_path / "config" / "pi-sdk" / "keys.json").exists()
    assert KEY not in typo.stdout + typo.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["prompt", "-m", "anthropic/claude-sonnet-4-5", "hi"],
        ["chat", "--json", "-m", "anthropic/claude-sonnet-4-5"],
    ],
)
def test_a_corrupt_keys_file_fails_up_front_naming_the_file(tmp_path: Path, command: list[str]):
    keys = tmp_path / "config" / "pi-sdk" / "keys.json"
    keys.parent.mkdir(parents=True)
    keys.write_text('{"anthropic": "' + KEY, encoding="utf-8")  # cut short: not JSON
    done = run_cli(command, cli_env(tmp_path, ANTHROPIC_BASE_URL="http://127.0.0.1:9"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pi-sdk: error: cannot read the keys file {keys}: not valid JSON"
    ]
    assert done.stdout == "" and KEY not in done.stderr
