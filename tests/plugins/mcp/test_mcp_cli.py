"""``pi-sdk mcp list CONFIG`` and ``pi-sdk chat --mcp CONFIG`` (the real command, real servers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env, run_cli, vendor_env
from _support.loopback import sse_step, text_reply
from _support.mcp_servers import BIN
from _support.wire import Call, Calls, Tokens, wire_for

from pi_sdk._cli import main

ANTHROPIC = "anthropic-messages"


def write_config(folder: Path, servers: dict[str, object]) -> Path:
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


TIME = {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]}


def test_mcp_list_shows_each_servers_tools_and_fails_for_a_server_that_did_not_start(
    tmp_path: Path,
):
    config = write_config(tmp_path, {"time": TIME, "broken": {"command": "no-such-server-xyz"}})
    done = run_cli(["mcp", "list", str(config)], cli_env(tmp_path))
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "time · stdio · MCP 2026-07-28 · 2 tools",
        "  get_current_time  read-only    Get current time in a specific timezone",
        "  convert_time      read-only    Convert time between timezones",
        "broken · stdio · failed: command 'no-such-server-xyz' not found",
        "2 servers · 2 tools · 1 failed",
    ]
    assert done.stderr == ""  # the failure is printed once, not logged again


def test_mcp_list_json_gives_names_annotations_and_schemas(tmp_path: Path):
    config = write_config(tmp_path, {"time": {**TIME, "toolPrefix": "clock_"}})
    done = run_cli(["mcp", "list", "--json", str(config)], cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    [server] = [json.loads(line) for line in done.stdout.splitlines()]
    assert server["server"] == "time" and server["state"] == "ready"
    first = server["tools"][0]
    assert (first["name"], first["mcpName"]) == ("clock_get_current_time", "get_current_time")
    assert first["annotations"]["readOnlyHint"] is True
    assert first["inputSchema"]["required"] == ["timezone"]


def test_a_bad_config_is_an_input_error(tmp_path: Path):
    config = write_config(tmp_path, {"time": {"command": "x", "args": "--nope"}})
    done = run_cli(["mcp", "list", str(config)], cli_env(tmp_path))
    assert done.returncode == 2
    assert done.stderr == (
        f"pi-sdk: error: {config}: server 'time': 'args' must be a list of strings\n"
    )


def test_without_pi_sdk_mcp_the_commands_say_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    monkeypatch.setitem(sys.modules, "pi_sdk_mcp.cli", None)  # import fails: not installed
    assert main(["mcp", "list", str(tmp_path / "mcp.json")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "pi-sdk: error: `pi-sdk mcp list` needs pi-sdk-mcp: install it with"
        " `pip install pi-sdk-mcp`\n"
    )
    assert main(["chat", "-m", "anthropic/claude-sonnet-4-5", "--mcp", "mcp.json"]) == 2
    assert "--mcp needs pi-sdk-mcp" in capsys.readouterr().err


def test_chat_with_mcp_offers_the_servers_tools_and_sends_their_results(tmp_path: Path):
    config = write_config(tmp_path, {"time": TIME})
    wire = wire_for(ANTHROPIC)
    call = Calls((Call("toolu_1", "get_current_time", ('{"timezone": ', '"Asia/Tokyo"}')),))
    steps = [sse_step(sum(wire.events([call], Tokens()), [])), text_reply(ANTHROPIC, "Evening.")]
    with ThreadedLoopback(steps) as server:
        env = cli_env(tmp_path, ANTHROPIC_API_KEY="test-key", **vendor_env(ANTHROPIC, server))
        args = ["chat", "-m", "anthropic/claude-sonnet-4-5", "--json", "--mcp", str(config)]
        done = run_cli(args, env, stdin="What time is it in Tokyo?\n")
    assert done.returncode == 0, done.stderr
    assert "mcp: time · 2 tools (get_current_time, convert_time)" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [end] = [e for e in events if e["type"] == "tool_execution_end"]
    assert (
        end["isError"] is False
        and '"timezone": "Asia/Tokyo"' in end["result"]["content"][0]["text"]
    )
    offered = [t["name"] for t in json.loads(server.bodies[0])["tools"]]
    assert offered == ["get_current_time", "convert_time"]
    result = json.loads(server.bodies[1])["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "Asia/Tokyo" in json.dumps(result["content"])
