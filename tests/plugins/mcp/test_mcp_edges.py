"""pi-sdk-mcp's less travelled paths, each by what a user sees (issue 34).

Configuration errors name the server and the key; result blocks this SDK does not know are
named, not dropped; a connection's calls without a signal, with an already aborted one, to a
failed server, and through a server that dies mid-call; listeners and hooks around the tool set.
"""

from __future__ import annotations

import asyncio
import json
import logging
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mcp.types as mcp
import pytest
from _support.mcp_servers import EdgeProcess, edge_stdio
from pi_sdk_mcp import HttpServer, McpServerError, McpServers, StdioServer, load_config
from pi_sdk_mcp import _connection as connection_module
from pi_sdk_mcp._config import ServerOptions
from pi_sdk_mcp._connection import ServerConnection
from pi_sdk_mcp._results import to_tool_result
from pi_sdk_mcp._transport import StderrLog
from pi_sdk_mcp.cli import ChatServers, status_lines

from pi_sdk import AbortController, Agent, ConfigurationError, TextContent
from pi_sdk.testing import ScriptedProvider, ScriptedReply

SECRET = "tok-5e4d3c2b1a09"

# --- configuration ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "stdio", "url": "http://a"}, "type 'stdio' needs 'command'"),
        ({"command": "x", "allowSampling": "yes"}, "'allowSampling' must be true or false"),
        ({"command": None}, "'command' is missing"),
        ({"type": "http", "url": None}, "'url' is missing"),
        ({"command": ""}, "'command' must be a non-empty string"),
        ({"command": ["npx", "server"]}, "'command' must be a non-empty string"),
        ({"command": "x", "toolPrefix": 3}, "'toolPrefix' must be a non-empty string"),
        ({"command": "x", "env": ["A=1"]}, "'env' must be an object of strings"),
        ({"url": "http://a", "headers": "X-Team: blue"}, "'headers' must be an object of strings"),
    ],
)
def test_a_bad_entry_is_refused_with_the_whole_sentence(entry: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_config({"mcpServers": {"bad": entry}}, environ={})
    assert str(caught.value) == f"MCP configuration: server 'bad': {message}"


def test_a_file_holding_something_else_than_an_object_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps([{"mcpServers": {}}]))
    with pytest.raises(ConfigurationError) as caught:
        load_config(path)
    assert str(caught.value) == (f"{path} must hold a JSON object with an 'mcpServers' object")


def test_server_configs_refuse_an_empty_command_and_an_unknown_transport() -> None:
    with pytest.raises(ConfigurationError) as caught:
        StdioServer(name="s", command="")
    assert str(caught.value) == "MCP server 's': 'command' is empty"
    with pytest.raises(ConfigurationError) as caught:
        HttpServer(name="h", url="http://a/mcp", transport="websocket")  # type: ignore[arg-type]
    assert str(caught.value) == "MCP server 'h': transport must be 'http' or 'sse'; got 'websocket'"


def test_a_config_without_secrets_redacts_nothing() -> None:
    plain = ServerOptions(name="plain")  # the options every server has: no secret among them
    assert plain.secrets() == []
    assert plain.redact(f"token {SECRET}") == f"token {SECRET}"
    stdio = StdioServer(name="s", command="x", env={"TOKEN": SECRET})
    assert stdio.redact(f"token {SECRET}") == "token [REDACTED]"


# --- results ----------------------------------------------------------------------------------


def test_a_block_of_a_type_this_sdk_does_not_know_is_named_not_dropped() -> None:
    video = SimpleNamespace(type="video")
    result = mcp.CallToolResult.model_construct(
        content=[mcp.TextContent(text="here:"), video], structured_content=None, is_error=False
    )
    seen = to_tool_result(result, "s", "t")
    assert [b.text for b in seen.content] == ["here:", "[video content, not shown]"]  # type: ignore[union-attr]
    nameless = mcp.CallToolResult.model_construct(
        content=[object()], structured_content=None, is_error=False
    )
    assert to_tool_result(nameless, "s", "t").content[0].text == "[object content, not shown]"  # type: ignore[union-attr]


def test_structured_content_is_found_in_a_text_block_after_an_image() -> None:
    image = mcp.ImageContent(data="aGk=", mime_type="image/png")
    result = mcp.CallToolResult(
        content=[image, mcp.TextContent(text='{"a": 1}')], structured_content={"a": 1}
    )
    seen = to_tool_result(result, "s", "t")
    assert [b.type for b in seen.content] == ["image", "text"]  # no JSON copy appended


def test_a_blob_that_is_not_base64_is_sized_by_its_characters() -> None:
    blob = mcp.BlobResourceContents(uri="file:///x.bin", blob="abc", mime_type="application/zip")
    result = mcp.CallToolResult(content=[mcp.EmbeddedResource(type="resource", resource=blob)])
    seen = to_tool_result(result, "s", "t")
    assert seen.content == [
        TextContent(text="[resource file:///x.bin: application/zip, 3 bytes, not shown]")
    ]


@pytest.mark.parametrize(
    ("blob", "shown"),
    [
        ("QUJD\nREVG", "6 bytes"),  # wrapped as MIME encoders write it: the break is skipped
        ("QUJD REVG\r\n", "6 bytes"),
        ("QUJDREVG", "6 bytes"),
        ("abc", "3 bytes"),  # not base64 (bad padding): its characters
    ],
)
def test_a_blob_is_sized_by_its_decoded_bytes_even_with_line_breaks(blob: str, shown: str) -> None:
    data = mcp.BlobResourceContents(uri="file:///x.bin", blob=blob, mime_type="application/zip")
    result = mcp.CallToolResult(content=[mcp.EmbeddedResource(type="resource", resource=data)])
    assert to_tool_result(result, "s", "t").content == [
        TextContent(text=f"[resource file:///x.bin: application/zip, {shown}, not shown]")
    ]


# --- one connection, no server process --------------------------------------------------------


def _connection(config: StdioServer | HttpServer, changes: list[str] | None = None) -> Any:
    noted = [] if changes is None else changes
    return ServerConnection(config, sampler=None, on_change=lambda c: noted.append(c.state))


def test_the_client_names_itself_with_the_package_version_or_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = connection_module._client_info()  # noqa: SLF001 - what the server is told
    assert (info.name, info.version) == ("pi-sdk-mcp", metadata.version("pi-sdk-mcp"))

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(connection_module.metadata, "version", missing)
    info = connection_module._client_info()  # noqa: SLF001
    assert (info.name, info.version) == ("pi-sdk-mcp", "0")


async def test_a_connection_never_started_stops_quietly_and_shows_its_state() -> None:
    changes: list[str] = []
    connection = _connection(StdioServer(name="idle", command="x"), changes)
    assert repr(connection) == "ServerConnection('idle', state='stopped')"
    await connection.stop()
    assert (connection.state, connection.error, changes) == ("stopped", None, [])


async def test_a_stop_waits_5_s_for_the_server_then_5_s_more_after_cancelling_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_wait = asyncio.wait
    timeouts: list[float | None] = []

    async def wait(tasks: Any, timeout: float | None = None) -> Any:
        timeouts.append(timeout)  # the first wait runs out at once: the server never closes
        return await real_wait(tasks, timeout=0 if len(timeouts) == 1 else None)

    connection = _connection(StdioServer(name="stuck", command="x"), [])
    never = asyncio.ensure_future(asyncio.Event().wait())
    connection._task = never  # noqa: SLF001  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(connection_module.asyncio, "wait", wait)
    await connection.stop()
    assert (timeouts, never.cancelled(), connection.state) == ([5.0, 5.0], True, "stopped")


async def test_an_aborted_call_waits_up_to_5_s_for_its_cancellation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_wait = asyncio.wait
    timeouts: list[float | None] = []

    async def wait(tasks: Any, timeout: float | None = None) -> Any:
        timeouts.append(timeout)
        return await real_wait(tasks, timeout=timeout)

    async def never_answered(*_: Any) -> Any:
        await asyncio.Event().wait()

    connection = _connection(StdioServer(name="slow", command="x"), [])
    connection.state, connection._client = "ready", object()  # noqa: SLF001
    connection.tools = [SimpleNamespace(name="t")]
    monkeypatch.setattr(connection, "_call", never_answered)
    monkeypatch.setattr(connection_module.asyncio, "wait", wait)
    controller = AbortController()
    controller.abort()
    with pytest.raises(McpServerError) as raised:
        await connection.call("t", {}, signal=controller.signal)
    assert (
        str(raised.value)
        == "the call to 't' on MCP server 'slow' was cancelled: the run was aborted"
    )
    assert timeouts == [5.0]


async def test_a_failed_server_says_why_when_called_and_stays_failed_when_stopped() -> None:
    changes: list[str] = []
    connection = _connection(StdioServer(name="missing", command="no-such-mcp-server-xyz"), changes)
    await connection.start()
    assert repr(connection) == "ServerConnection('missing', state='failed')"
    with pytest.raises(McpServerError) as caught:
        await connection.call("echo", {"text": "x"})
    assert str(caught.value) == (
        "MCP server 'missing' is not running: command 'no-such-mcp-server-xyz' not found"
    )
    await connection.stop()
    assert connection.state == "failed" and changes == []  # it never was ready


async def test_transport_messages_are_logged_at_debug_with_secrets_redacted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    connection = _connection(StdioServer(name="s", command="x", env={"TOKEN": SECRET}))
    with caplog.at_level(logging.DEBUG, logger="pi_sdk_mcp"):
        await connection._on_message(ValueError(f"bad frame with {SECRET}"))  # noqa: SLF001
    [record] = [r for r in caplog.records if r.name == "pi_sdk_mcp"]
    assert (record.levelname, record.getMessage()) == (
        "DEBUG",
        "MCP server 's' transport: ValueError: bad frame with [REDACTED]",
    )


def test_a_closed_stderr_log_has_no_tail() -> None:
    log = StderrLog()
    log.file.write("line one\n")
    assert log.tail() == "line one"
    log.close()
    assert log.tail() == ""


def test_the_stderr_tail_is_the_last_twelve_written_lines_and_at_most_4000_characters():
    log = StderrLog()
    try:
        log.file.write("".join(f"line {n}  \n\n   \n" for n in range(3000)))  # 36,000+ chars
        assert log.tail().split("\n") == [f"line {n}" for n in range(2988, 3000)]
        log.file.write("".join(f"{n:02d}" + "x" * 498 + "\n" for n in range(20)))
        tail = log.tail()
        assert len(tail) == 4000 and tail.endswith("19" + "x" * 498)
        assert tail == "\n".join(f"{n:02d}" + "x" * 498 for n in range(8, 20))[-4000:]
    finally:
        log.close()


@pytest.mark.parametrize("transport", ["sse", "http"])
async def test_an_http_error_status_at_start_is_the_servers_error(transport: str) -> None:
    """HTTP+SSE fails with the response's status; the streamable HTTP client of the mcp SDK
    turns it into a JSON-RPC error first, whose text is shown as it is."""
    from pi_sdk_pytest.conformance.loopback import LoopbackServer, Reply

    async with LoopbackServer() as server:
        server.play(Reply(status=403, headers={"content-type": "text/plain"}, parts=(b"no",)))
        url = f"{server.url}/mcp"
        config = HttpServer(name="guarded", url=url, transport=transport)  # type: ignore[arg-type]
        connection = _connection(config)
        await connection.start()
    assert connection.state == "failed"
    if transport == "sse":
        assert connection.error == f"HTTP 403 from {url}"
    else:
        assert connection.error == "MCPError: Server returned an error response"


# --- a real server ----------------------------------------------------------------------------


async def test_calls_without_a_signal_and_with_an_aborted_one(edge_log: Path) -> None:
    connection = _connection(edge_stdio(edge_log))
    await connection.start()
    try:
        supervisor = connection._task  # noqa: SLF001
        await connection.start()  # already started: nothing more is started
        assert connection._task is supervisor  # noqa: SLF001
        answer = await connection.call("echo", {"text": "no signal"})
        assert [b.text for b in answer.content] == ["no signal"]  # type: ignore[union-attr]
        controller = AbortController()
        controller.abort()
        with pytest.raises(McpServerError) as caught:
            await connection.call("slow", {"seconds": 30, "tag": "never"}, controller.signal)
        assert str(caught.value) == (
            "the call to 'slow' on MCP server 'edge' was cancelled: the run was aborted"
        )
        assert connection.state == "ready"
    finally:
        await connection.stop()
    assert "started never" not in (edge_log.read_text() if edge_log.exists() else "")


async def test_a_server_that_dies_during_a_call_over_http_is_reported_once(
    edge_http: EdgeProcess,
) -> None:
    changes: list[str] = []
    connection = _connection(edge_http.config(), changes)
    await connection.start()
    try:
        with pytest.raises(McpServerError) as caught:
            await connection.call("crash", {})
        said = str(caught.value)
        assert said.startswith("MCP server 'edge' stopped during the call to 'crash': ")
        assert connection.state == "failed" and connection.tools == []
        assert said.endswith(str(connection.error))
        assert changes == ["failed"]
    finally:
        await connection.stop()
    assert changes == ["failed"]  # stopping a failed server reports nothing more


async def test_a_listener_that_raises_is_logged_and_the_others_still_hear(
    edge_log: Path, caplog: pytest.LogCaptureFixture
) -> None:
    heard: list[int] = []

    def broken(_tools: Any) -> None:
        raise RuntimeError("listener bug")

    async with McpServers([edge_stdio(edge_log)]) as servers:
        servers.subscribe(broken)
        servers.subscribe(lambda tools: heard.append(len(tools)))
        before = len(servers.tools)
        grow = next(t for t in servers.tools if t.name == "grow")
        with caplog.at_level(logging.ERROR, logger="pi_sdk_mcp"):
            await grow.execute("c1", {"name": "added"}, AbortController().signal, lambda _: None)
            for _ in range(1000):  # the change arrives as a notification: a deadline, no timing
                if heard:
                    break
                await asyncio.sleep(0.02)
    assert heard == [before + 1, 0]  # the tool added, then the servers stopped
    failures = [r for r in caplog.records if r.getMessage() == "an MCP tool-set listener raised"]
    assert len(failures) == 2 and failures[0].exc_info is not None
    assert "listener bug" in str(failures[0].exc_info[1])


async def test_attach_awaits_an_async_hook_of_the_agent(edge_log: Path) -> None:
    seen: list[str] = []

    async def after(context: Any, _signal: Any) -> None:
        await asyncio.sleep(0)
        seen.append(context.tool_call.name)

    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "b"}), "done"])
    async with McpServers([edge_stdio(edge_log)]) as servers:
        agent = Agent(model=provider.model, after_tool_call=after)
        servers.attach(agent)
        await agent.prompt("echo")
    assert seen == ["echo"]
    answers = [m.text for m in agent.messages if m.role == "toolResult"]  # type: ignore[union-attr]
    assert answers == ["b"]


# --- the chat's lines -------------------------------------------------------------------------


def test_the_chat_reports_a_failed_start_and_a_server_that_stops_later(
    tmp_path: Path, edge_log: Path
) -> None:
    config = tmp_path / "mcp.json"
    edge = edge_stdio(edge_log)
    entry = {"command": edge.command, "args": list(edge.args), "env": dict(edge.env)}
    config.write_text(
        json.dumps({"mcpServers": {"edge": entry, "missing": {"command": "no-such-server-xyz"}}})
    )
    notes: list[tuple[str, str]] = []
    provider = ScriptedProvider(["unused"])
    chat = ChatServers(str(config), Agent(model=provider.model), lambda t, s: notes.append((t, s)))
    loop = asyncio.new_event_loop()
    try:
        chat.start(loop)
        assert notes[1] == ("mcp: missing failed: command 'no-such-server-xyz' not found", "red")
        assert notes[0][0].startswith("mcp: edge · ") and notes[0][1] == "dim"
        notes.clear()
        crash = next(t for t in chat.servers.tools if t.name == "crash")
        with pytest.raises(McpServerError):
            loop.run_until_complete(
                crash.execute("c1", {}, AbortController().signal, lambda _: None)
            )
        chat.stop(loop)
    finally:
        loop.close()
    [status] = [s for s in chat.servers.statuses if s.name == "edge"]
    assert notes == [
        (f"mcp: edge stopped: {status.error}", "red"),
        ("mcp: the tools changed: 0 tools", "dim"),
    ]


def test_status_lines_name_a_failed_server_and_count_the_tools_of_the_others() -> None:
    failed = SimpleNamespace(
        name="db", state="failed", error="HTTP 401 from http://a/mcp", tools=[]
    )
    ready = SimpleNamespace(
        name="time", state="ready", error=None, tools=[SimpleNamespace(name="now")]
    )
    assert status_lines([failed, ready]) == [  # type: ignore[list-item]
        ("mcp: db failed: HTTP 401 from http://a/mcp", "red"),
        ("mcp: time · 1 tools (now)", "dim"),
    ]


def test_tool_lines_give_each_kind_and_shorten_long_descriptions() -> None:
    from pi_sdk_mcp.cli import _tool_lines

    def a_tool(
        name: str, read_only: bool, destructive: bool, about: str, mcp_name: str = ""
    ) -> Any:
        hints = {"readOnlyHint": read_only, "destructiveHint": destructive}
        return SimpleNamespace(
            name=name, mcp_name=mcp_name or name, description=about, annotations=hints
        )

    long = "Delete every file under the given folder, recursively, without asking twice."
    assert len(long) > 72
    lines = _tool_lines(
        [
            a_tool("ls", True, True, "List files.\nSecond line."),
            a_tool("rm", False, True, long),
            a_tool("edge_mk", False, False, "", mcp_name="mk"),
        ]
    )
    assert lines == [
        "  ls       read-only    List files.",
        f"  rm       destructive  {long[:71]}…",
        "  edge_mk  additive     (= mk)",
    ]
    assert _tool_lines([]) == []


async def test_two_calls_lost_together_report_the_server_once(edge_log: Path) -> None:
    changes: list[str] = []
    connection = _connection(edge_stdio(edge_log), changes)
    await connection.start()
    try:
        slow = asyncio.ensure_future(connection.call("slow", {"seconds": 30, "tag": "both"}))
        for _ in range(500):  # the slow call is under way on the server: a deadline, no timing
            if "started both" in (edge_log.read_text() if edge_log.exists() else ""):
                break
            await asyncio.sleep(0.02)
        with pytest.raises(McpServerError) as crashed:
            await connection.call("crash", {})
        with pytest.raises(McpServerError) as lost:
            await slow
    finally:
        await connection.stop()
    assert str(crashed.value).startswith("MCP server 'edge' stopped during the call to 'crash': ")
    assert str(lost.value).startswith("MCP server 'edge' stopped during the call to 'slow': ")
    assert changes == ["failed"]  # one report for one server that stopped


# --- the tool set, without server processes -------------------------------------------------


def _ready(servers: McpServers, name: str, *tools: str) -> Any:
    [connection] = [c for c in servers._connections if c.name == name]  # noqa: SLF001
    connection.state = "ready"
    connection.tools = [mcp.Tool(name=t, input_schema={"type": "object"}) for t in tools]
    return connection


def test_the_tool_set_follows_ready_servers_and_tells_listeners_of_real_changes_only() -> None:
    servers = McpServers(
        [
            StdioServer(name="git", command="x", tool_prefix="git_"),
            StdioServer(name="fs", command="y"),
            HttpServer(name="web", url="https://h", transport="sse"),
        ]
    )
    heard: list[list[str]] = []
    unsubscribe = servers.subscribe(lambda tools: heard.append([t.name for t in tools]))
    servers.reserve(["read"])
    assert heard == []  # nothing is ready: no change
    web = _ready(servers, "web", "fetch")
    web.state = "starting"  # listed, but not ready: its tools are not offered yet
    fs = _ready(servers, "fs", "read", "write")
    servers._changed(fs)  # noqa: SLF001
    assert heard == [["fs__read", "write"]]  # "read" is the agent's own
    servers._changed(fs)  # noqa: SLF001 - the same tools: no news
    assert len(heard) == 1
    git = _ready(servers, "git", "status")
    servers._changed(git)  # noqa: SLF001
    assert heard[-1] == ["git_status", "fs__read", "write"]  # configuration order
    assert all(servers.owns(t) for t in servers.tools)
    assert not McpServers([]).owns(servers.tools[0]) and not servers.owns(object())  # type: ignore[arg-type]
    statuses = {s.name: s for s in servers.statuses}
    assert [s.name for s in servers.statuses] == ["git", "fs", "web"]
    assert (statuses["web"].transport, statuses["web"].state, statuses["web"].tools) == (
        "sse",
        "starting",
        [],
    )
    assert statuses["fs"].transport == "stdio"
    assert [t.name for t in statuses["fs"].tools] == ["fs__read", "write"]
    assert repr(servers) == "McpServers(git=ready, fs=ready, web=starting)"
    fs.state = "failed"
    servers._changed(fs)  # noqa: SLF001
    assert heard[-1] == ["git_status"]
    unsubscribe()
    unsubscribe()  # twice is harmless
    git.state = "failed"
    servers._changed(git)  # noqa: SLF001
    assert heard[-1] == ["git_status"] and servers.tools == []


def test_servers_sample_only_with_a_model_and_their_own_consent() -> None:
    from pi_sdk import Model

    model = Model(id="m", api="a", provider="p")
    configs = [
        StdioServer(name="yes", command="x", allow_sampling=True),
        StdioServer(name="no", command="x"),
    ]
    samplers = {c.name: c._sampler for c in McpServers(configs, sampling_model=model)._connections}  # noqa: SLF001
    assert samplers["no"] is None and samplers["yes"] is not None
    assert samplers["yes"].model is model and samplers["yes"].server == "yes"
    without = McpServers(configs)._connections  # noqa: SLF001
    assert [c._sampler for c in without] == [None, None]  # noqa: SLF001


def test_two_servers_of_one_name_are_refused() -> None:
    configs = [StdioServer(name=n, command="x") for n in ("b", "a", "b", "a", "c")]
    with pytest.raises(ConfigurationError) as caught:
        McpServers(configs)
    assert str(caught.value) == "MCP server names must be unique: a, b"


def test_headings_and_the_summary_say_each_servers_state() -> None:
    from pi_sdk_mcp.cli import _heading, _status_json, _summary, _tool_lines

    tool = SimpleNamespace(
        name="git_log", mcp_name="log", description="x" * 72, parameters={"type": "object"},
        annotations={"readOnlyHint": True, "destructiveHint": False},
    )  # fmt: skip
    ready = SimpleNamespace(
        name="git", transport="stdio", state="ready", error=None, protocol_version="2026-07-28",
        tools=[tool],
    )  # fmt: skip
    old = SimpleNamespace(
        name="web", transport="sse", state="ready", error=None, protocol_version=None, tools=[]
    )
    failed = SimpleNamespace(
        name="db", transport="http", state="failed", error="HTTP 401", protocol_version=None,
        tools=[],
    )  # fmt: skip
    assert _heading(ready) == "git · stdio · MCP 2026-07-28 · 1 tools"  # type: ignore[arg-type]
    assert _heading(old) == "web · sse · 0 tools"  # type: ignore[arg-type]
    assert _heading(failed) == "db · http · failed: HTTP 401"  # type: ignore[arg-type]
    assert _summary([ready]) == "1 server · 1 tools"  # type: ignore[list-item]
    assert _summary([ready, old, failed]) == "3 servers · 1 tools · 1 failed"  # type: ignore[list-item]
    assert _summary([ready, old]) == "2 servers · 1 tools"  # type: ignore[list-item]
    assert _tool_lines([tool]) == ["  git_log  read-only    (= log) " + "x" * 72]  # type: ignore[list-item]
    assert _status_json(ready) == {  # type: ignore[arg-type]
        "server": "git", "transport": "stdio", "state": "ready", "error": None,
        "protocolVersion": "2026-07-28",
        "tools": [{"name": "git_log", "mcpName": "log", "description": "x" * 72,
                   "annotations": {"readOnlyHint": True, "destructiveHint": False},
                   "inputSchema": {"type": "object"}}],
    }  # fmt: skip
