"""The stream layer's keyword-only arguments stay keyword-only (``pi_sdk/_stream``).

A caller (a provider package, an application) passes these by name; the layer may add or
reorder them because no one can pass them by position. Each entry lists, for one public
callable, exactly the parameters a positional call must not reach.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk._stream.call_scope import CallScope
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.provider import Provider
from pi_sdk._stream.provider_errors import (
    ProviderError,
    connection_error,
    http_error_message,
    malformed_event_error,
)
from pi_sdk._stream.response_body import ResponseBody
from pi_sdk._stream.usage_estimate import estimate_missing_usage
from pi_sdk._stream.wire_decoder import WireDecoder

KEYWORD_ONLY: list[tuple[Callable[..., Any], set[str]]] = [
    (new_assistant_message, {"base_url"}),
    (MessageBuilder.__init__, {"base_url"}),
    (MessageBuilder.open_text, {"signature"}),
    (MessageBuilder.end_text, {"text", "signature"}),
    (MessageBuilder.open_thinking, {"signature", "redacted"}),
    (MessageBuilder.thinking, {"signature"}),
    (MessageBuilder.end_thinking, {"text", "signature"}),
    (MessageBuilder.open_tool_call, {"id", "name", "arguments", "initial", "signature"}),
    (MessageBuilder.end_tool_call, {"arguments"}),
    (
        MessageBuilder.tool_call,
        {"id", "name", "arguments", "signature", "invalid_arguments"},
    ),
    (
        MessageBuilder.set_usage,
        {
            "input",
            "output",
            "cache_read",
            "cache_write",
            "reasoning",
            "cache_write_1h",
            "price",
        },
    ),
    (MessageBuilder.set_response, {"id", "model"}),
    (MessageBuilder.done, {"exact"}),
    (MessageBuilder.error, {"reason"}),
    (CallScope.__init__, {"api_key", "payload_hooks", "gate"}),
    (
        AssistantMessageEventStream.__init__,
        {
            "model",
            "signal",
            "max_retries",
            "max_retry_delay_ms",
            "timeout_ms",
            "idle_timeout_ms",
            "secrets",
            "context",
            "output",
            "observe",
            "scope",
            "on_retry",
        },
    ),
    (Provider.configure, {"api_key", "base_url", "headers", "name"}),
    (ProviderError.__init__, {"status", "retryable", "retry_after_ms", "incomplete"}),
    (ProviderError.from_http, {"fallback_retry_after_ms"}),
    (http_error_message, {"reason", "code", "message", "body"}),
    (connection_error, {"timed_out"}),
    (malformed_event_error, {"event", "number", "error"}),
    (ResponseBody.__init__, {"transport_errors", "timeout_errors"}),
    (ResponseBody.check_content, {"status", "expected"}),
    (ResponseBody.drain, {"timeout_s", "limit"}),
    (estimate_missing_usage, {"reason"}),
    (WireDecoder.finish, {"saw_done"}),
]


@pytest.mark.parametrize(
    ("function", "names"), KEYWORD_ONLY, ids=[f.__qualname__ for f, _ in KEYWORD_ONLY]
)
def test_these_arguments_are_keyword_only(function: Callable[..., Any], names: set[str]) -> None:
    parameters = inspect.signature(function).parameters.values()
    keyword_only = {p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keyword_only == names
    positional = [p for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert all(p.name not in names for p in positional)


def test_a_positional_call_is_refused() -> None:
    """What the table means for a caller: the check a positional call gets from Python."""

    async def chunks() -> Any:
        yield b""

    body = ResponseBody(chunks())
    with pytest.raises(TypeError):
        body.check_content("text/html", 203)  # type: ignore[misc]
    with pytest.raises(TypeError):
        ProviderError("x", 500)  # type: ignore[misc]
