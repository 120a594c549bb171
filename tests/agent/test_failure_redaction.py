"""Secrets in the exceptions of the caller's callbacks never reach a transcript or a log line.

A ``get_api_key`` hook, a ``transform_context`` or a tool that raises with a credential in its
message (a vault client quoting the token it was given) ends the run, or the call, with an error
text pi-sdk builds from the exception: that text and the ERROR record with its traceback are
redacted like a vendor's error (credential patterns, secret-looking environment variables).
Checked before any model call, when the vendor-log redaction is not yet installed.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from _support.agent import isolated_plugins  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import AgentMessage
from pi_sdk.testing import ScriptedProvider, ScriptedReply

PATTERNED = "sk-test-SECRET1234567890"  # a vendor key's shape: the patterns know it
# In no credential format: only its environment variable's name marks it a secret.
BY_VALUE = "vlt-5f4e3d2c1b0a9988"


@pytest.fixture(autouse=True)
def vault_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULT_TOKEN", BY_VALUE)


def _leaks(text: str) -> list[str]:
    return [s for s in (PATTERNED, BY_VALUE, "SECRET1234567890") if s in text]


def _raise(*_: Any) -> Any:
    raise RuntimeError(f"vault refused: token {BY_VALUE}, fallback key {PATTERNED}")


@pytest.mark.parametrize("hook", ["get_api_key", "transform_context"])
async def test_a_raising_callback_ends_the_run_with_a_redacted_error(
    hook: str, caplog: pytest.LogCaptureFixture
) -> None:
    provider = ScriptedProvider(["never"])
    agent = pi_sdk.Agent(model=provider.model, **{hook: _raise})
    with caplog.at_level(logging.DEBUG):
        await agent.prompt("hi")
    last = agent.messages[-1]
    assert isinstance(last, pi_sdk.AssistantMessage) and last.stop_reason == "error"
    assert last.error_message == "vault refused: token [REDACTED], fallback key [REDACTED]"
    assert agent.state.error == last.error_message
    # What a handler writes: the message and the traceback, its last line the exception's text.
    assert "agent run failed" in caplog.text and "vault refused: token [REDACTED]" in caplog.text
    assert _leaks(caplog.text) == []


async def test_a_raising_tool_gives_a_redacted_error_result() -> None:
    async def vault(*_: Any) -> pi_sdk.AgentToolResult:
        _raise()

    tool = pi_sdk.AgentTool(name="vault", description="d", execute=vault)
    provider = ScriptedProvider([ScriptedReply.tool_call("vault", {}), "done"])
    agent = pi_sdk.Agent(model=provider.model, tools=[tool])
    await agent.prompt("hi")
    results: list[AgentMessage] = [m for m in agent.messages if m.role == "toolResult"]
    [result] = results
    assert isinstance(result, pi_sdk.ToolResultMessage) and result.is_error
    assert result.text == "vault refused: token [REDACTED], fallback key [REDACTED]"
    assert _leaks(str([m.model_dump() for m in provider.calls[1].messages])) == []
