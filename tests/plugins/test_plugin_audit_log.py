"""pi-sdk-audit-log: redaction, JSON lines, and the plugin + listener in Agent runs."""

import io
import json

import pi_sdk_audit_log
import pytest
from _support.plugins import ArgumentGuard
from pi_sdk_audit_log import AUDIT_LOG_ENV, REDACTED, AuditLog, Redactor

from pi_sdk import AfterToolCallResult, Agent, TextContent, hookimpl, tool
from pi_sdk.testing import ScriptedProvider, ScriptedReply

OPENAI_KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0KlMn"
ANTHROPIC_KEY = "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2"
GOOGLE_KEY = "AIza" + "SyD" + "x" * 32
GITHUB_TOKEN = "ghp_" + "a" * 36
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"export OPENAI_API_KEY={OPENAI_KEY}", OPENAI_KEY),
        (f"key is {ANTHROPIC_KEY}.", ANTHROPIC_KEY),
        (f"https://host/v1beta/models?alt=sse&key={GOOGLE_KEY}", GOOGLE_KEY),
        (f"git clone https://{GITHUB_TOKEN}@github.com/a/b", GITHUB_TOKEN),
        (f"cookie jar {JWT}", JWT),
        ("curl -H 'Authorization: Bearer abcdefgh12345678' https://x", "abcdefgh12345678"),
        ('curl -H "x-api-key: plainsecretvalue" https://x', "plainsecretvalue"),
        ("mysql --password=hunter2hunter2 db", "hunter2hunter2"),
        ('{"api_key": "zzzzzzzzzz", "n": 1}', "zzzzzzzzzz"),
        ("AWS AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----",
            "MIIEow",
        ),
    ],
)
def test_credentials_in_text_are_redacted(text, secret):
    redacted = Redactor(environment_values=False).redact_text(text)
    assert secret not in redacted
    assert REDACTED in redacted


def test_ordinary_text_is_left_alone():
    text = 'total_tokens=12, max_tokens: 4096, "sk-" alone, a token of thanks'
    assert Redactor(environment_values=False).redact_text(text) == text


def test_secret_keys_are_redacted_at_any_depth_without_mutating_the_input():
    value = {
        "headers": {"Authorization": "Basic xyz", "X-Api-Key": "abc", "Accept": "json"},
        "github_token": "t",
        "max_tokens": 100,
        "items": [{"password": "p", "name": "n"}],
        "custom-auth": "c",
        "empty_token": "",
    }
    before = json.dumps(value, sort_keys=True)
    out = Redactor(keys={"Custom_Auth"}, environment_values=False).redact(value)
    assert json.dumps(value, sort_keys=True) == before
    assert out == {
        "headers": {"Authorization": REDACTED, "X-Api-Key": REDACTED, "Accept": "json"},
        "github_token": REDACTED,
        "max_tokens": 100,
        "items": [{"password": REDACTED, "name": "n"}],
        "custom-auth": REDACTED,
        "empty_token": "",
    }


def test_environment_secrets_and_custom_values_and_patterns(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "opaque-value-42")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to be worth redacting
    monkeypatch.setenv("HOME_DIRECTORY", "/home/someone-long")
    redactor = Redactor(values=["tenant-0042"], patterns=[r"\bacct-\d{6}\b"])
    text = "opaque-value-42 abc /home/someone-long tenant-0042 acct-123456"
    assert redactor.redact_text(text) == f"{REDACTED} abc /home/someone-long {REDACTED} {REDACTED}"
    assert Redactor(environment_values=False).redact_text(text).startswith("opaque-value-42")


def test_the_log_writes_one_redacted_json_object_per_line():
    stream = io.StringIO()
    log = AuditLog(stream, redactor=Redactor(environment_values=False))
    log.write({"kind": "x", "command": f"use {OPENAI_KEY}", "odd": {1, 2}.__class__})
    log.write({"kind": "y"})
    lines = stream.getvalue().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["x", "y"]
    first = json.loads(lines[0])
    assert first["command"] == f"use {REDACTED}"
    assert first["odd"] == "<class 'set'>"  # not JSON: written as its repr


# --- the plugin and the listener in Agent runs -----------------------------------------------


@pytest.fixture
def audit_plugin(plugin_manager, monkeypatch, tmp_path):
    path = tmp_path / "logs" / "audit.jsonl"
    monkeypatch.setenv(AUDIT_LOG_ENV, str(path))
    pi_sdk_audit_log.reset()
    plugin_manager.register(pi_sdk_audit_log, name="audit-log")
    yield path
    pi_sdk_audit_log.reset()


@tool
async def http_get(url: str, headers: dict[str, str]) -> str:
    """Fetch a URL.

    Args:
        url: The URL.
        headers: Request headers.
    """
    return f"fetched {url} with {sorted(headers)}; server echoed {headers.get('Authorization')}"


async def test_the_plugin_logs_every_call_and_result_redacted_and_the_listener_logs_events(
    audit_plugin, plugin_manager
):
    class Guard(ArgumentGuard):
        @hookimpl
        def after_tool_call(self, context):  # runs before the audit log (which is trylast)
            text = context.result.content[0].text
            return AfterToolCallResult(content=[TextContent(text=text + " [checked]")])

    plugin_manager.register(Guard("url", "internal", "internal hosts are off limits"), name="guard")
    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call(
                "http_get",
                {
                    "url": f"https://api.example.com/v1?key={GOOGLE_KEY}",
                    "headers": {"Authorization": f"Bearer {OPENAI_KEY}", "Accept": "json"},
                },
            ),
            ScriptedReply.tool_call("http_get", {"url": "https://internal/x", "headers": {}}),
            "done",
        ]
    )
    agent = Agent(model=provider.model, tools=[http_get])
    agent.subscribe(pi_sdk_audit_log.listener)
    await agent.prompt("fetch it")

    text = audit_plugin.read_text()
    for secret in (GOOGLE_KEY, OPENAI_KEY):
        assert secret not in text
    records = [json.loads(line) for line in text.splitlines()]

    calls = [r for r in records if r["kind"] == "toolCall"]
    assert len(calls) == 1  # the blocked call never ran
    [call] = calls
    assert call["toolName"] == "http_get"
    assert call["arguments"]["url"] == f"https://api.example.com/v1?key={REDACTED}"
    assert call["arguments"]["headers"] == {"Authorization": REDACTED, "Accept": "json"}
    assert call["isError"] is False
    result_text = call["result"]["content"][0]["text"]
    assert result_text.endswith("[checked]")  # the final result, after the other plugin
    assert f"echoed Bearer {REDACTED}" in result_text
    assert call["model"] == {"api": "scripted", "provider": "scripted", "id": provider.model.id}

    events = [r["event"] for r in records if r["kind"] == "event"]
    types = [e["type"] for e in events]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    assert "message_update" not in types
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    assert [e["isError"] for e in ends] == [False, True]
    assert ends[1]["result"]["content"][0]["text"] == "internal hosts are off limits"


async def test_without_configuration_nothing_is_written(plugin_manager, monkeypatch, tmp_path):
    monkeypatch.delenv(AUDIT_LOG_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    pi_sdk_audit_log.reset()
    plugin_manager.register(pi_sdk_audit_log, name="audit-log")
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("http_get", {"url": "https://a", "headers": {}}), "ok"]
    )
    agent = Agent(model=provider.model, tools=[http_get])
    agent.subscribe(pi_sdk_audit_log.listener)
    await agent.prompt("go")
    assert pi_sdk_audit_log.active_log() is None
    assert list(tmp_path.iterdir()) == []


async def test_a_configured_log_as_agent_callbacks_without_the_plugin(plugin_manager):
    stream = io.StringIO()
    log = AuditLog(stream, skip_events=())
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("http_get", {"url": "https://a", "headers": {}}), "ok"]
    )
    agent = Agent(model=provider.model, tools=[http_get], after_tool_call=log.after_tool_call)
    agent.subscribe(log.listener)
    await agent.prompt("go")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert sum(r["kind"] == "toolCall" for r in records) == 1
    events = [r["event"] for r in records if r["kind"] == "event"]
    updates = [e for e in events if e["type"] == "message_update"]
    assert updates
    # the message so far is left out of each delta (it is in the message_end record)
    assert [sorted(u) for u in updates] == [["assistantMessageEvent", "message", "type"]] * len(
        updates
    )
    assert all("partial" not in u["assistantMessageEvent"] for u in updates)


def test_redaction_leaves_placeholders_and_prose_alone():
    from pi_sdk.plugins import redact_text

    text = "pass StreamOptions(api_key=...) or set ANTHROPIC_API_KEY"
    assert redact_text(text) == text
    assert "s3cr3t-value" not in redact_text("api_key=s3cr3t-value")


async def test_the_log_records_the_result_after_plugins_registered_after_it_too(
    plugin_manager, monkeypatch, tmp_path
):
    """``trylast``: the log sees the final result whatever the registration order."""

    class Checker:
        @hookimpl
        def after_tool_call(self, context):
            text = context.result.content[0].text
            return AfterToolCallResult(content=[TextContent(text=text + " [checked]")])

    stream = io.StringIO()
    pi_sdk_audit_log.configure(AuditLog(stream, skip_events={"message_update"}))
    try:
        plugin_manager.register(Checker(), name="checker-first")
        plugin_manager.register(pi_sdk_audit_log, name="audit-log")
        provider = ScriptedProvider(
            [ScriptedReply.tool_call("http_get", {"url": "https://a", "headers": {}}), "ok"]
        )
        await Agent(model=provider.model, tools=[http_get]).prompt("go")
    finally:
        pi_sdk_audit_log.reset()
    [call] = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert call["result"]["content"][0]["text"].endswith("[checked]")


@tool
async def broken(path: str) -> str:
    """Fail.

    Args:
        path: A path.
    """
    raise RuntimeError(f"no such file: {path} é")


async def test_a_failed_call_is_logged_as_an_error_with_its_text_unescaped():
    stream = io.StringIO()
    log = AuditLog(stream, redactor=Redactor(patterns=[r"secret-\d+"], environment_values=False))
    provider = ScriptedProvider([ScriptedReply.tool_call("broken", {"path": "secret-42/x"}), "ok"])
    agent = Agent(model=provider.model, tools=[broken], after_tool_call=log.after_tool_call)
    await agent.prompt("go")
    text = stream.getvalue()
    assert "é" in text and "\\u00e9" not in text  # UTF-8 text, not ASCII escapes
    [call] = [json.loads(line) for line in text.splitlines()]
    assert call["isError"] is True and call["toolCallId"]
    assert call["arguments"] == {"path": f"{REDACTED}/x"}  # the given redactor's own pattern
    assert call["result"]["content"][0]["text"] == f"no such file: {REDACTED}/x é"


def test_a_file_log_appends_creates_folders_and_closes_while_a_stream_stays_open(tmp_path):
    path = tmp_path / "a" / "b" / "audit.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"kind":"old"}\n')
    log = AuditLog(path)
    assert log.path == path and repr(log) == f"AuditLog({str(path)!r})"
    log.write({"kind": "new"})
    log.close()
    assert [json.loads(line)["kind"] for line in path.read_text().splitlines()] == ["old", "new"]
    with pytest.raises(ValueError, match="closed"):
        log.write({"kind": "after close"})
    fresh = AuditLog(tmp_path / "c" / "e" / "d.jsonl")
    fresh.close()
    assert (tmp_path / "c" / "e" / "d.jsonl").exists()

    stream = io.StringIO()
    log = AuditLog(stream)
    assert log.path is None and repr(log) == f"AuditLog({stream!r})"
    log.close()
    log.write({"kind": "still open"})
    assert json.loads(stream.getvalue())["kind"] == "still open"
