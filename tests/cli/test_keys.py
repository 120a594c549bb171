"""``pi-sdk keys``: owner-only storage, served through ``get_api_key``, never printed."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _support.cli import (
    ThreadedLoopback,
    cli_env,
    pexpect,
    popen_cli,
    run_cli,
    spawn,
    vendor_env,
)
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


@pytest.mark.timeout(180)  # seven runs of the CLI, each a fresh interpreter
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
    keys.chmod(0o600)
    done = run_cli(command, cli_env(tmp_path, ANTHROPIC_BASE_URL="http://127.0.0.1:9"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pi-sdk: error: cannot read the keys file {keys}: not valid JSON"
    ]
    assert done.stdout == "" and KEY not in done.stderr


PROVIDERS = [
    "amazon-bedrock", "anthropic", "azure-openai-responses", "cerebras", "deepseek", "fireworks",
    "google", "google-vertex", "groq", "huggingface", "mistral", "openai", "openrouter", "xai",
    "zai", "minimax", "moonshotai", "opencode", "vercel-ai-gateway", "kimi-coding",
]  # fmt: skip


@pytest.mark.slow  # 20 pi-sdk processes at once
def test_concurrent_keys_set_keep_every_key(tmp_path: Path):
    """20 ``pi-sdk keys set`` at once: each one's read-change-write holds the file's lock."""
    env = cli_env(tmp_path)
    started = [popen_cli(["keys", "set", provider], env) for provider in PROVIDERS]
    for provider, process in zip(PROVIDERS, started, strict=True):
        out, err = process.communicate(f"key-of-{provider}-0123456789\n", timeout=120)
        assert process.returncode == 0, err
        assert f"stored the key for {provider}" in out
    keys = json.loads((tmp_path / "config" / "pi-sdk" / "keys.json").read_text(encoding="utf-8"))
    assert keys == {p: f"key-of-{p}-0123456789" for p in PROVIDERS}


def test_a_write_waits_for_the_one_in_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Deterministic: the first ``keys set`` pauses between reading and writing the file."""
    from pi_sdk._cli import keys as keys_module
    from pi_sdk._cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(keys_module, "_read_key", lambda provider: f"key-of-{provider}")
    second_done = threading.Event()
    real_save = keys_module.KeyStore.save
    paused: list[bool] = []

    def save(store: Any, keys: dict[str, str]) -> None:
        if not paused:  # the first writer: let the second one run meanwhile
            paused.append(True)
            second_done.wait(timeout=2)  # with the lock the second waits for us: no deadlock
        real_save(store, keys)

    monkeypatch.setattr(keys_module.KeyStore, "save", save)
    first = threading.Thread(target=main, args=(["keys", "set", "anthropic"],))
    first.start()
    while not paused:
        time.sleep(0.01)
    assert main(["keys", "set", "openai"]) == 0
    second_done.set()
    first.join(10)
    stored = json.loads((tmp_path / "config" / "pi-sdk" / "keys.json").read_text("utf-8"))
    assert stored == {"anthropic": "key-of-anthropic", "openai": "key-of-openai"}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_a_keys_file_others_can_read_is_named_and_made_owner_only(tmp_path: Path):
    keys = tmp_path / "config" / "pi-sdk" / "keys.json"
    keys.parent.mkdir(parents=True)
    keys.write_text(json.dumps({"anthropic": KEY}), encoding="utf-8")
    keys.chmod(0o644)
    done = run_cli(["keys", "list"], cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"pi-sdk: warning: the keys file {keys} was readable by others (mode 0644);"
        " it is now owner-only (0600): rotate its keys if others could read them"
    ]
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert run_cli(["keys", "list"], cli_env(tmp_path)).stderr == ""  # said once
    assert KEY not in done.stdout + done.stderr
