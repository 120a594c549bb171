"""The ``mcpServers`` JSON and the server classes: what is read, what is refused, what is hidden."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sdk_mcp import HttpServer, StdioServer, Timeouts, load_config

from pi_sdk import ConfigurationError

CLAUDE_DESKTOP = {
    "mcpServers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
        "github": {
            "command": "docker",
            "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_TOKEN}"},
            "autoApprove": ["get_me"],  # Cline's key: not ours, ignored
        },
        "docs": {"url": "https://docs.example.com/mcp", "headers": {"X-Key": "${DOCS_KEY:-none}"}},
        "legacy": {"transportType": "sse", "url": "http://127.0.0.1:9000/sse"},
        "off": {"command": "never-run", "disabled": True},
    }
}


def test_the_common_format_reads_in_file_order_with_variables_expanded(tmp_path: Path):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(CLAUDE_DESKTOP), encoding="utf-8")
    time, github, docs, legacy = load_config(path, environ={"GH_TOKEN": "ghp_secret_value_1"})
    assert time == StdioServer(name="time", command="mcp-server-time",
                               args=("--local-timezone", "UTC"))  # fmt: skip
    assert isinstance(github, StdioServer)
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret_value_1"}
    assert docs == HttpServer(name="docs", url="https://docs.example.com/mcp",
                              headers={"X-Key": "none"})  # fmt: skip
    assert isinstance(legacy, HttpServer) and legacy.transport == "sse"


def test_our_own_keys_set_the_options():
    [server] = load_config(
        {
            "servers": {
                "git": {
                    "type": "stdio",
                    "command": "mcp-server-git",
                    "toolPrefix": "git_",
                    "allowSampling": True,
                    "protocol": "legacy",
                    "callTimeoutMs": 1500,
                    "startupTimeoutMs": 2000,
                }
            }
        }  # fmt: skip
    )  # VS Code's top-level key
    assert server.tool_prefix == "git_" and server.allow_sampling and server.protocol == "legacy"
    assert server.timeouts == Timeouts(startup_ms=2000, list_ms=30_000, call_ms=1500)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"args": ["x"]}, "server 'bad': needs 'command' (stdio) or 'url' (HTTP)"),
        ({"command": "x", "url": "http://a"}, "has both 'command' and 'url'; set 'type'"),
        ({"command": "x", "args": "--verbose"}, "'args' must be a list of strings"),
        ({"command": "x", "env": {"PORT": 8080}}, "'env' values must be strings (PORT)"),
        ({"type": "websocket", "url": "ws://a"}, "unknown type 'websocket'"),
        ({"url": "ftp://files"}, "'url' must start with http:// or https://"),
        ({"command": "x", "allowsampling": True}, "unknown key 'allowsampling' (did you mean"),
        ({"command": "x", "callTimeoutMs": 0}, "'callTimeoutMs' must be a positive number (ms)"),
        ({"command": "x", "protocol": "2026-07-28"}, "'protocol' must be 'auto' or 'legacy'"),
        ({"command": "x", "env": {"K": "${MISSING_VAR}"}}, "environment variable MISSING_VAR is"),
        ("mcp-server-time", "server 'bad' must be a JSON object"),
    ],
)
def test_a_bad_entry_is_refused_naming_the_server_and_the_key(entry: object, message: str):
    with pytest.raises(ConfigurationError) as caught:
        load_config({"mcpServers": {"bad": entry}}, environ={})
    assert str(caught.value).startswith("MCP configuration: ")
    assert message in str(caught.value)


def test_a_missing_or_broken_file_is_named(tmp_path: Path):
    with pytest.raises(ConfigurationError, match=r"cannot read .*nope\.json"):
        load_config(tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"broken\.json is not valid JSON: .*line 1"):
        load_config(broken)
    with pytest.raises(ConfigurationError, match="has no 'mcpServers' object"):
        load_config({"servers": []})


def test_secret_values_never_appear_in_reprs_or_errors():
    secret = "sk-live-0123456789abcdef"
    stdio = StdioServer(name="a", command="srv", args=("--x",), env={"API_TOKEN": secret})
    http = HttpServer(name="b", url="https://h.example/mcp", headers={"Authorization": secret})
    assert secret not in repr(stdio) and "API_TOKEN" in repr(stdio)
    assert secret not in repr(http) and "Authorization" in repr(http)
    assert secret not in stdio.redact(f"server said: token={secret}")
    with pytest.raises(ConfigurationError) as caught:
        load_config({"mcpServers": {"c": {"command": "x", "env": {"TOKEN": 12345678}}}})
    assert "12345678" not in str(caught.value)


def test_short_values_are_not_treated_as_secrets():
    """pi-sdk's one rule: values under 8 characters are ordinary text (MIN_SECRET_LENGTH)."""
    env = {"DEBUG": "1", "MODE": "abcdefg", "KEY": "abcdefgh"}
    server = StdioServer(name="a", command="srv", env=env)
    assert server.redact("exit status 1, mode abcdefg, key abcdefgh") == (
        "exit status 1, mode abcdefg, key [REDACTED]"
    )


def test_invalid_options_are_refused_before_any_io():
    with pytest.raises(ConfigurationError, match="needs a name"):
        StdioServer(name="", command="x")
    with pytest.raises(ConfigurationError, match="timeout call_ms must be positive"):
        Timeouts(call_ms=-1)
    with pytest.raises(ConfigurationError, match="protocol must be 'auto' or 'legacy'"):
        HttpServer(name="h", url="http://a", protocol="new")  # type: ignore[arg-type]


def test_loading_the_plugin_and_reading_a_config_do_not_import_the_mcp_sdk():
    """Every pi-sdk process loads the entry point: the mcp SDK (about 0.9 s) waits for a start."""
    import subprocess
    import sys

    code = (
        "import sys, pi_sdk_mcp._plugin, pi_sdk_mcp, pi_sdk._cli;"
        " pi_sdk_mcp.load_config({'mcpServers': {'t': {'command': 'x'}}});"
        " print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_load_config_takes_its_source_by_name_and_its_environment_by_keyword_only() -> None:
    config = {"mcpServers": {"time": {"command": "${TOOL:-uvx}", "args": ["mcp-server-time"]}}}
    [by_name] = load_config(source=config, environ={"TOOL": "pipx"})
    assert by_name.command == "pipx"  # type: ignore[union-attr]
    with pytest.raises(TypeError):
        load_config(config, {"TOOL": "pipx"})  # type: ignore[misc]


def test_reprs_show_the_shape_and_only_the_names_of_secret_maps():
    stdio = StdioServer(
        name="a", command="srv", args=("--token", "zzzzzzzzzz"), env={"B": "zzzzzzzzzz", "A": "2"}
    )
    assert repr(stdio) == (
        "StdioServer(name='a', command='srv', args=['--token', '[REDACTED]'], env=<A, B>)"
    )
    assert repr(StdioServer(name="a", command="srv")) == (
        "StdioServer(name='a', command='srv', args=[])"
    )
    http = HttpServer(name="b", url="https://h/mcp", headers={"X-Key": "abcdefgh", "Accept": "j"})
    assert repr(http) == (
        "HttpServer(name='b', url='https://h/mcp', transport='http', headers=<Accept, X-Key>)"
    )
    assert repr(HttpServer(name="b", url="http://h", transport="sse")) == (
        "HttpServer(name='b', url='http://h', transport='sse')"
    )
    assert http.secrets() == ["abcdefgh"]  # "j" is too short to be a secret
    assert http.redact("sent abcdefgh and j") == "sent [REDACTED] and j"


def test_the_defaults_are_the_documented_ones():
    server = StdioServer(name="a", command="x")
    assert server.timeouts == Timeouts(startup_ms=30_000, list_ms=30_000, call_ms=300_000)
    assert (server.allow_sampling, server.tool_prefix, server.protocol) == (False, None, "auto")
    assert (server.args, dict(server.env), server.cwd) == ((), {}, None)
    http = HttpServer(name="h", url="https://h")
    assert (http.transport, dict(http.headers), http.auth) == ("http", {}, None)


@pytest.mark.parametrize("name", ["startup_ms", "list_ms", "call_ms"])
@pytest.mark.parametrize("value", [0, -0.5])
def test_each_timeout_must_be_positive(name: str, value: float):
    with pytest.raises(ConfigurationError) as caught:
        Timeouts(**{name: value})
    assert str(caught.value) == f"timeout {name} must be positive; got {value!r}"
    assert getattr(Timeouts(**{name: 0.001}), name) == 0.001


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: StdioServer(name="s", command=""), "MCP server 's': 'command' is empty"),
        (
            lambda: HttpServer(name="h", url="ftp://h/abcdefghij", headers={"K": "abcdefghij"}),
            "MCP server 'h': 'url' must start with http:// or https://; got 'ftp://h/[REDACTED]'",
        ),
        (
            lambda: HttpServer(name="h", url="https://h", transport="ws"),  # type: ignore[arg-type]
            "MCP server 'h': transport must be 'http' or 'sse'; got 'ws'",
        ),
        (
            lambda: StdioServer(name="s", command="x", protocol="2025"),  # type: ignore[arg-type]
            "MCP server 's': protocol must be 'auto' or 'legacy'; got '2025'",
        ),
    ],
)
def test_each_invalid_server_is_refused_with_its_sentence(build, message: str):  # noqa: ANN001
    with pytest.raises(ConfigurationError) as caught:
        build()
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"type": "http", "url": "https://h"}, HttpServer(name="s", url="https://h")),
        ({"type": "streamable-http", "url": "https://h"}, HttpServer(name="s", url="https://h")),
        ({"type": "streamableHttp", "url": "https://h"}, HttpServer(name="s", url="https://h")),
        (
            {"type": "sse", "url": "https://h"},
            HttpServer(name="s", url="https://h", transport="sse"),
        ),
        ({"transportType": "stdio", "command": "x"}, StdioServer(name="s", command="x")),
        ({"type": "stdio", "command": "x", "url": "https://h"}, StdioServer(name="s", command="x")),
        ({"command": "x", "disabled": False}, StdioServer(name="s", command="x")),
        ({"command": "x", "disabled": "yes"}, StdioServer(name="s", command="x")),
        (
            {"command": "x", "cwd": "/srv", "allowSampling": False},
            StdioServer(name="s", command="x", cwd="/srv"),
        ),
        (
            {"command": "x", "listTimeoutMs": 2.5, "startupTimeoutMs": 7},
            StdioServer(name="s", command="x", timeouts=Timeouts(list_ms=2.5, startup_ms=7)),
        ),
        (
            {
                "url": "https://h",
                "headers": {"A": "b"},
                "autoApprove": ["x"],
                "timeout": 5,
                "cwdir": "/",
            },
            HttpServer(name="s", url="https://h", headers={"A": "b"}),
        ),
    ],
)
def test_each_way_to_write_a_server(entry: dict[str, object], expected: object):
    assert load_config({"mcpServers": {"s": entry}}, environ={}) == [expected]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"command": "x", "TOOLPREFIX": "a"},
            "unknown key 'TOOLPREFIX' (did you mean 'toolPrefix'?)",
        ),
        ({"command": "x", "Command": "y"}, "unknown key 'Command' (did you mean 'command'?)"),
        ({"command": "x", "tolPrefx": "a"}, "unknown key 'tolPrefx' (did you mean 'toolPrefix'?)"),
        ({"command": "x", "callTimeoutMs": True}, "'callTimeoutMs' must be a positive number (ms)"),
        (
            {"command": "x", "listTimeoutMs": "100"},
            "'listTimeoutMs' must be a positive number (ms)",
        ),
        (
            {"command": "x", "startupTimeoutMs": -1},
            "'startupTimeoutMs' must be a positive number (ms)",
        ),
        (
            {"command": "x", "env": {"B": 1, "A": "a", "C": None}},
            "'env' values must be strings (B, C)",
        ),
        ({"command": "x", "args": ["a", 2]}, "'args' must be a list of strings"),
        ({"command": "x", "cwd": 3}, "'cwd' must be a non-empty string"),
        ({"url": ""}, "'url' must be a non-empty string"),
        (
            {"type": "ws", "url": "x"},
            "unknown type 'ws' (expected one of 'stdio', 'http', 'streamable-http',"
            " 'streamableHttp',"
            " 'sse')",
        ),
    ],
)
def test_each_refusal_is_one_whole_sentence(entry: dict[str, object], message: str):
    with pytest.raises(ConfigurationError) as caught:
        load_config({"mcpServers": {"s": entry}}, environ={})
    assert str(caught.value) == f"MCP configuration: server 's': {message}"


@pytest.mark.parametrize(
    ("value", "environ", "expanded"),
    [
        ("${A}", {"A": "1"}, "1"),
        ("${A:-d}", {"A": "1"}, "1"),
        ("${A:-d}", {"A": ""}, "d"),
        ("${A:-d}", {}, "d"),
        ("${A}", {"A": ""}, ""),
        ("${A:-}", {}, ""),
        ("x${A}y${B:-b}z", {"A": "a"}, "xaybz"),
        ("$A {A} ${1A}", {"A": "a"}, "$A {A} ${1A}"),
    ],
)
def test_variables_expand_in_every_string(value: str, environ: dict[str, str], expanded: str):
    entry = {"command": "x", "args": [value], "env": {"K": value}, "callTimeoutMs": 5}
    [server] = load_config({"mcpServers": {"s": entry}}, environ=environ)
    assert isinstance(server, StdioServer)
    assert (server.args, dict(server.env)) == ((expanded,), {"K": expanded})
    assert server.timeouts.call_ms == 5


def test_variables_come_from_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PI_SDK_MCP_TEST_CMD", "from-env")
    [server] = load_config({"mcpServers": {"s": {"command": "${PI_SDK_MCP_TEST_CMD}"}}})
    assert isinstance(server, StdioServer) and server.command == "from-env"


def test_mcp_servers_wins_over_servers_and_other_top_level_keys_are_ignored():
    config = {
        "mcpServers": {"a": {"command": "x"}},
        "servers": {"b": {"command": "y"}},
        "inputs": [],
    }
    assert [s.name for s in load_config(config, environ={})] == ["a"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Timeouts(1000),  # type: ignore[misc]
        lambda: StdioServer("s", command="x"),  # type: ignore[misc]
        lambda: StdioServer("x", name="s"),  # type: ignore[misc]
        lambda: HttpServer("h", url="http://127.0.0.1:9/mcp"),  # type: ignore[misc]
        lambda: HttpServer("http://127.0.0.1:9/mcp", name="h"),  # type: ignore[misc]
    ],
)
def test_settings_are_keyword_only(make: Any) -> None:
    with pytest.raises(TypeError):
        make()


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (Timeouts(call_ms=5), "call_ms"),
        (StdioServer(name="s", command="x"), "name"),
        (StdioServer(name="s", command="x"), "timeouts"),
        (HttpServer(name="h", url="http://127.0.0.1:9/mcp"), "url"),
    ],
)
def test_settings_are_frozen(config: Any, field: str) -> None:
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(config, field, getattr(config, field))


def test_timeouts_are_values_usable_as_keys() -> None:
    assert {Timeouts(call_ms=5): "a"}[Timeouts(call_ms=5)] == "a"
