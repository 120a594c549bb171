"""``pi-sdk mcp list CONFIG`` and ``pi-sdk chat --mcp CONFIG`` (the real command, real servers)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _support.cli import ThreadedLoopback, cli_env, run_cli, vendor_env
from _support.loopback import sse_step, text_reply
from _support.mcp_servers import BIN, command
from _support.wire import Call, Calls, Tokens, wire_for

from pi_sdk._cli import main

ANTHROPIC = "anthropic-messages"


def write_config(folder: Path, servers: dict[str, object]) -> Path:
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def time_entry() -> dict[str, object]:
    """``mcp-server-time`` in UTC, as an ``mcpServers`` entry (forked warm: mcp_servers.py)."""
    program, args = command(BIN / "mcp-server-time", "--local-timezone", "UTC")
    return {"command": program, "args": list(args)}


def test_mcp_list_shows_each_servers_tools_and_fails_for_a_server_that_did_not_start(
    tmp_path: Path,
):
    config = write_config(
        tmp_path, {"time": time_entry(), "broken": {"command": "no-such-server-xyz"}}
    )
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
    config = write_config(tmp_path, {"time": {**time_entry(), "toolPrefix": "clock_"}})
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
    config = write_config(tmp_path, {"time": time_entry()})
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


# --- `pi-sdk mcp list` in process: in-memory servers ----------------------------------------

LONG = "Ä" * 71 + "xy"  # 73 characters: one over the 72 shown


def _memory_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer("memory", version="1.0")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def look(city: str) -> str:
        """Weather in Zürich or elsewhere.

        Second line, not shown."""
        return city

    @server.tool(annotations=ToolAnnotations(destructiveHint=True))
    def wipe() -> str:
        """Delete everything."""
        return ""

    @server.tool(annotations=ToolAnnotations(destructiveHint=False), description=LONG)
    def add() -> str:
        return ""

    @server.tool(name="edge", description="x" * 72)
    def exact() -> str:
        return ""

    return server


@pytest.fixture
def memory_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_sdk_mcp import _connection

    def transport(config: Any, stderr: Any) -> Any:
        if config.name == "down":
            raise ConnectionRefusedError("nobody listens")
        return _memory_server()

    monkeypatch.setattr(_connection, "open_transport", transport)


def _list(tmp_path: Path, servers: dict[str, object], *, as_json: bool) -> tuple[int, list[str]]:
    from pi_sdk_mcp.cli import list_servers

    out = io.StringIO()
    status = list_servers(str(write_config(tmp_path, servers)), as_json=as_json, out=out)
    return status, out.getvalue().splitlines()


HTTP = {"url": "http://127.0.0.1:9/mcp"}


def test_the_list_shows_each_tools_kind_and_first_line_cut_to_72_characters(
    tmp_path: Path, memory_servers: None
) -> None:
    status, lines = _list(tmp_path, {"mem": {**HTTP, "toolPrefix": "m_"}}, as_json=False)
    assert status == 0
    assert lines[0].startswith("mem · http · MCP ") and lines[0].endswith(" · 4 tools")
    assert lines[1:] == [
        "  m_look  read-only    (= look) Weather in Zürich or elsewhere.",
        "  m_wipe  destructive  (= wipe) Delete everything.",
        f"  m_add   additive     (= add) {LONG[:71]}…",
        f"  m_edge  destructive  (= edge) {'x' * 72}",  # no hints: the spec's defaults
        "1 server · 4 tools",
    ]


def test_a_failed_server_is_one_line_the_summary_counts_it_and_the_status_is_1(
    tmp_path: Path, memory_servers: None
) -> None:
    status, lines = _list(tmp_path, {"down": HTTP, "mem": HTTP}, as_json=False)
    assert status == 1
    assert lines[0] == "down · http · failed: ConnectionRefusedError: nobody listens"
    assert lines[-1] == "2 servers · 4 tools · 1 failed"


def test_the_json_list_is_one_object_per_server_in_utf_8(
    tmp_path: Path, memory_servers: None
) -> None:
    status, lines = _list(tmp_path, {"mem": HTTP, "down": HTTP}, as_json=True)
    assert status == 1 and len(lines) == 2
    assert "Zürich" in lines[0]  # not \\u escaped
    mem, down = (json.loads(line) for line in lines)
    assert (mem["server"], mem["transport"], mem["state"], mem["error"]) == (
        "mem",
        "http",
        "ready",
        None,
    )
    assert mem["protocolVersion"]
    look = mem["tools"][0]
    assert (look["name"], look["mcpName"]) == ("look", "look")
    assert look["description"].startswith("Weather in Zürich or elsewhere.\n")
    assert look["annotations"]["readOnlyHint"] is True
    assert look["inputSchema"]["required"] == ["city"]
    assert (down["state"], down["error"], down["tools"], down["protocolVersion"]) == (
        "failed",
        "ConnectionRefusedError: nobody listens",
        [],
        None,
    )


@pytest.fixture
def fresh_mcp_loggers() -> Any:
    """``pi_sdk_mcp`` and ``mcp`` as a fresh process has them; their state put back after."""
    import logging

    saved = []
    for name in ("pi_sdk_mcp", "mcp"):
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        logger.handlers, logger.propagate = [], True
    yield
    for logger, handlers, propagate in saved:
        logger.handlers, logger.propagate = handlers, propagate


def test_the_servers_log_records_stay_out_of_a_configured_root_logger(
    tmp_path: Path, memory_servers: None, fresh_mcp_loggers: None
) -> None:
    """A ``--tools`` module may configure logging: the list and chat output stay the CLI's."""
    import logging

    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(f"{record.name}: {record.getMessage()}")

    root = logging.getLogger()
    handler = Collect(logging.DEBUG)
    root.addHandler(handler)
    try:
        status, lines = _list(tmp_path, {"down": HTTP}, as_json=False)
        logging.getLogger("mcp").warning("the SDK's own chatter")
    finally:
        root.removeHandler(handler)
    assert (status, lines[0]) == (1, "down · http · failed: ConnectionRefusedError: nobody listens")
    assert seen == []
    for name in ("pi_sdk_mcp", "mcp"):
        logger = logging.getLogger(name)
        assert [type(h) for h in logger.handlers] == [logging.NullHandler]
