"""A plugin that fails to load stops ``prompt``, ``chat`` and ``serve`` unless the user opts out.

A policy plugin whose hook name is misspelt (``after_tool_calls``) fails validation, so none of
its hooks are registered, its ``before_tool_call`` policy included: running anyway would run
every tool unchecked. The commands that run models refuse, name the plugin and the fixes.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env, run_cli, vendor_env
from _support.loopback import text_reply

MODEL = ["-m", "anthropic/claude-sonnet-4-5"]

POLICY = """
    import pi_sdk

    @pi_sdk.hookimpl
    def before_tool_call(context, signal):
        return pi_sdk.BeforeToolCallResult(block=True, reason="no tools today")

    @pi_sdk.hookimpl
    def after_tool_calls(context, signal):  # misspelt: the whole plugin fails to load
        return None
"""


def _site(tmp_path: Path) -> Path:
    """An installed distribution ``pi-sdk-strict-policy`` with the entry point ``policy``."""
    site = tmp_path / "site"
    info = site / "pi_sdk_strict_policy-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    metadata = "Metadata-Version: 2.1\nName: pi-sdk-strict-policy\nVersion: 1.0\n"
    (info / "METADATA").write_text(metadata)
    (info / "entry_points.txt").write_text("[pi_sdk]\npolicy = pi_test_strict_policy\n")
    (site / "pi_test_strict_policy.py").write_text(textwrap.dedent(POLICY))
    return site


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(_site(tmp_path)), os.environ.get("PYTHONPATH", "")])
    return cli_env(tmp_path, ANTHROPIC_API_KEY="test-key", PYTHONPATH=path, **extra)


REFUSAL = (
    "pi-sdk: error: plugin 'policy' (pi-sdk-strict-policy) failed to load, so none of its hooks"
    " would apply (a tool policy, a redaction, ...); fix it or `pip uninstall"
    " pi-sdk-strict-policy`, or run without it: --allow-broken-plugins"
    " (or PI_SDK_ALLOW_BROKEN_PLUGINS=1)"
)


@pytest.mark.parametrize(
    ("command", "stdin"),
    [
        (["prompt", *MODEL, "hi"], ""),
        (["chat", *MODEL, "--json"], "hi\n"),
        (["serve", "--allow", "anthropic/*", "--host", "256.256.256.256"], ""),
    ],
)
def test_a_plugin_that_failed_to_load_stops_the_command(
    tmp_path: Path, command: list[str], stdin: str
):
    with ThreadedLoopback([text_reply("anthropic-messages", "Hi!")]) as server:
        env = _env(
            tmp_path, PI_SDK_PROXY_TOKEN="t" * 32, **vendor_env("anthropic-messages", server)
        )
        done = run_cli(command, env, stdin=stdin)
        assert server.bodies == []  # nothing reached the vendor
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("pi-sdk: warning: plugin 'policy' failed to load:")
    assert "did you mean 'after_tool_call'?" in lines[0]
    assert lines[-1] == REFUSAL
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("option", "variables"),
    [(["--allow-broken-plugins"], {}), ([], {"PI_SDK_ALLOW_BROKEN_PLUGINS": "1"})],
)
def test_the_user_can_run_without_the_broken_plugin_explicitly(
    tmp_path: Path, option: list[str], variables: dict[str, str]
):
    with ThreadedLoopback([text_reply("anthropic-messages", "Hi!")]) as server:
        env = _env(tmp_path, **variables, **vendor_env("anthropic-messages", server))
        done = run_cli(["prompt", *MODEL, *option, "hi"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hi!\n"
    assert "pi-sdk: warning: running without plugin 'policy', which failed to load" in done.stderr


def test_a_plugin_named_to_load_but_not_installed_stops_the_command_too(tmp_path: Path):
    env = _env(tmp_path, PI_SDK_LOAD_PLUGINS="anthropic,policy-strict")
    done = run_cli(["prompt", *MODEL, "hi"], env)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "pi-sdk: error: PI_SDK_LOAD_PLUGINS names 'policy-strict', which is not an installed"
        " plugin, so none of its hooks would apply; correct the name (`pi-sdk plugins` lists"
        " the installed ones), or run without it: --allow-broken-plugins"
        " (or PI_SDK_ALLOW_BROKEN_PLUGINS=1)"
    )


def test_listing_commands_still_run_and_say_which_plugin_failed(tmp_path: Path):
    done = run_cli(["plugins"], _env(tmp_path))
    assert done.returncode == 1  # as before: the listing reports the failure
    assert "policy" in done.stdout
    assert run_cli(["models", "--provider", "anthropic"], _env(tmp_path)).returncode == 0
