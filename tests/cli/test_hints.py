"""Hints a command-line user can act on: a command or an option, not a Python argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.cli import PROMPT, ThreadedLoopback, ask, cli_env, pexpect, run_cli, spawn, vendor_env
from _support.loopback import text_reply

import pi_sdk
from pi_sdk._cli import hints
from pi_sdk.plugins import PluginManager

MODEL = ["-m", "anthropic/claude-sonnet-4-5"]
ANTHROPIC = "anthropic-messages"


def test_a_provider_whose_package_is_missing_names_the_package(
    plugin_manager: PluginManager, monkeypatch: pytest.MonkeyPatch
):
    """With only pi-sdk-core installed (no provider registered, no package found)."""
    monkeypatch.setattr(hints, "_installed", lambda names: frozenset())
    assert hints.unknown_provider("anthropic") == (
        "no models registered for provider 'anthropic'; its models come with pi-sdk-anthropic:"
        " pip install pi-sdk-anthropic (`pi-sdk models` lists them)"
    )
    assert "pi-sdk-anthropic and pi-sdk-openai: pip install pi-sdk-anthropic pi-sdk-openai" in (
        hints.unknown_provider("github-copilot")
    )
    assert "pip install" not in hints.unknown_provider("acme")  # no first-party package has it


def test_a_provider_package_left_out_by_load_plugins_is_named(tmp_path: Path):
    done = run_cli(["prompt", *MODEL, "hi"], cli_env(tmp_path, PI_SDK_LOAD_PLUGINS="openai"))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "pi-sdk: error: no models registered for provider 'anthropic'; pi-sdk-anthropic is"
        " installed but PI_SDK_LOAD_PLUGINS leaves it out (`pi-sdk models` lists them)"
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_a_missing_key_suggests_pi_sdk_keys_set(tmp_path: Path, as_json: bool):
    with ThreadedLoopback([text_reply(ANTHROPIC, "unused")]) as server:
        env = cli_env(tmp_path, **vendor_env(ANTHROPIC, server))  # no ANTHROPIC_API_KEY
        done = run_cli(["prompt", *MODEL, *(["--json"] if as_json else []), "hi"], env)
    assert done.returncode == 1
    hint = (
        "no API key for provider 'anthropic': store one with `pi-sdk keys set anthropic`,"
        " or set ANTHROPIC_API_KEY or ANTHROPIC_OAUTH_TOKEN"
    )
    assert (f"pi-sdk: error: {hint}" if as_json else f"✘ error: {hint}") in done.stderr
    assert "StreamOptions" not in done.stderr
    if as_json:  # the events keep the library's words: they are data
        ends = [json.loads(line) for line in done.stdout.splitlines()]
        assert "StreamOptions" in ends[-1]["messages"][-1]["errorMessage"]


def _cut_session(path: Path) -> None:
    user = pi_sdk.UserMessage(content="Capital of France?", timestamp=1)
    pi_sdk.save_session(path, [user, user])
    path.write_bytes(path.read_bytes()[:-10])  # the last line loses its end


def test_a_cut_session_names_the_cli_option_and_continues_without_touching_the_file(
    tmp_path: Path,
):
    cut = tmp_path / "cut.jsonl"
    _cut_session(cut)
    before = cut.read_bytes()
    env = cli_env(tmp_path, ANTHROPIC_API_KEY="test-key")
    refused = run_cli(["chat", *MODEL, "--json", "--session", str(cut)], env)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        f"pi-sdk: error: {cut}: the header records 2 entries but the file holds 1: the last 1"
        " is missing (the file was cut short; line 3: the file ends inside this line (a JSON"
        " value that does not end: Unterminated string starting at)); pass --allow-truncated"
        " to continue from the entries before it"
    )
    with ThreadedLoopback([text_reply(ANTHROPIC, "Paris.")]) as server:
        env.update(vendor_env(ANTHROPIC, server))
        args = ["chat", *MODEL, "--json", "--session", str(cut), "--allow-truncated"]
        done = run_cli(args, env, stdin="again?\n")
    assert done.returncode == 0, done.stderr
    assert f"{cut} was cut short: loaded its complete entries (1 entry) and left it as it is" in (
        done.stderr
    )
    assert cut.read_bytes() == before  # nothing lost: the cut file is as it was
    saved = sorted((tmp_path / "data" / "pi-sdk" / "sessions").glob("*.jsonl"))
    assert len(pi_sdk.load_session(saved[0]).messages) == 3  # the entry, the prompt, the answer


def test_continue_follows_a_session_that_save_moved(tmp_path: Path):
    moved = tmp_path / "kept.jsonl"
    with ThreadedLoopback(
        [text_reply(ANTHROPIC, "Paris."), text_reply(ANTHROPIC, "2.1 million")]
    ) as server:
        env = cli_env(tmp_path, ANTHROPIC_API_KEY="test-key", **vendor_env(ANTHROPIC, server))
        child = spawn(["chat", *MODEL], env)
        child.expect(PROMPT)
        ask(child, "Capital of France?", "Paris.")
        ask(child, f"/save {moved}", f"saved 2 messages to {moved}")
        ask(child, "Thanks", "2.1 million")  # the answer after the move is saved there too
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
        default = list((tmp_path / "data" / "pi-sdk" / "sessions").glob("*.jsonl"))
        assert len(default) == 1  # the first turn's autosave, left behind by /save FILE

        child = spawn(["chat", "--continue", "--json"], env)
        child.expect(f"continuing {moved}: 4 messages")
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()

    moved.unlink()  # the recorded session is gone: say so, continue the newest of sessions/
    done = run_cli(["chat", "--continue", "--json"], env)
    assert f"the session saved last, {moved}, no longer exists; continuing {default[0]}" in (
        done.stderr
    )
    assert f"continuing {default[0]}: 2 messages" in done.stderr
