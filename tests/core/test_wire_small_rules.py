"""Small rules of the wire layer, each with its whole result: why arguments are not a JSON
object (``arguments_error.py``), the text standing for a server tool's result
(``server_tools.py``), the retry policy's checks (``retry_policy.py``), and where an abort
callback runs: at once without a loop, on its own loop when the abort comes from another
thread (``abort.py``).
"""

from __future__ import annotations

import asyncio
import threading
from decimal import Decimal
from typing import Any

import pytest

import pi_sdk
from pi_sdk._wire.arguments_error import json_object_problem
from pi_sdk._wire.retry_policy import (
    RetryPolicy,
    is_retryable_assistant_error,
    requested_retry_delay_ms,
)
from pi_sdk._wire.server_tools import server_block_text
from pi_sdk._wire.validation import format_validation_error
from pi_sdk.types import ServerToolCall, ServerToolResult


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", "the text is empty"),
        (" \n\t", "the text is empty"),
        ("[" * 100_000, "nesting too deep"),
        ("[1]", "a JSON array is not an object"),
        ("{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)
def test_why_arguments_are_not_a_json_object(raw: str, problem: str):
    assert json_object_problem(raw) == problem


def _result(content: Any, error: str | None = None) -> ServerToolResult:
    return ServerToolResult(
        tool_call_id="s1", kind="code_execution_result", content=content, error=error
    )


def test_a_server_tool_result_as_text():
    assert server_block_text(_result(None, error="unavailable")) == (
        "[code_execution_result: error unavailable]"
    )
    nested = {
        "run": [{"stdout": "42\n", "return_code": 0, "stderr": " ", "ok": True}],
        "links": [{"url": "https://a.example", "title": "A"}, {"uri": "https://b.example"}],
        "again": {"url": "https://a.example", "title": "A"},
    }
    assert server_block_text(_result(nested)) == (
        "[code_execution_result]\nstdout: 42\n\nreturn_code: 0\n- A https://a.example\n"
        "- https://b.example"
    )
    assert server_block_text(_result({"output": True, "text": 7})) == (
        "[code_execution_result]\ntext: 7"
    )
    assert server_block_text(_result([])) == "[code_execution_result]"
    assert server_block_text(_result({"n": 1})) == '[code_execution_result] {"n":1}'


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_retries": "3"}, "max_retries must be an int; got '3'"),
        ({"max_retries": True}, "max_retries must be an int; got True"),
        ({"max_retries": 2.0}, "max_retries must be an int; got 2.0"),
        ({"max_retries": -1}, "max_retries must be 0 or more; got -1"),
    ],
)
def test_the_retry_policy_checks_its_count(settings: dict[str, Any], message: str):
    with pytest.raises(ValueError) as caught:
        RetryPolicy(**settings)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "settings",
    [
        {"max_retries": 0},
        {"base_delay_ms": 0},
        {"max_delay_ms": 0},
        {"base_delay_ms": 0.5, "max_delay_ms": 1e12},
        {"jitter": 0},
        {"jitter": 1},
    ],
)
def test_the_retry_policy_takes_every_edge_of_its_ranges(settings: dict[str, Any]):
    policy = RetryPolicy(**settings)
    assert all(getattr(policy, name) == value for name, value in settings.items())


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"base_delay_ms": -0.5},
            "base_delay_ms must be a finite number of ms, 0 or more; got -0.5",
        ),
        (
            {"max_delay_ms": float("nan")},
            "max_delay_ms must be a finite number of ms, 0 or more; got nan",
        ),
        (
            {"max_delay_ms": "100"},
            "max_delay_ms must be a finite number of ms, 0 or more; got '100'",
        ),
        (
            {"base_delay_ms": float("inf")},
            "base_delay_ms must be a finite number of ms, 0 or more; got inf",
        ),
        ({"jitter": -0.01}, "jitter must be between 0 and 1; got -0.01"),
        ({"jitter": 1.01}, "jitter must be between 0 and 1; got 1.01"),
    ],
)
def test_the_retry_policy_refuses_what_is_out_of_range(settings: dict[str, Any], message: str):
    with pytest.raises(ValueError) as caught:
        RetryPolicy(**settings)
    assert str(caught.value) == message


def _failed(text: str, *diagnostics: pi_sdk.types.Diagnostic) -> pi_sdk.AssistantMessage:
    message = pi_sdk.AssistantMessage(api="a", provider="p", model="m", error_message=text)
    message.stop_reason, message.diagnostics = "error", list(diagnostics) or None
    return message


def _provider_error(**details: Any) -> pi_sdk.types.Diagnostic:
    return pi_sdk.types.Diagnostic(type="provider_error", details=details)


@pytest.mark.parametrize(
    ("diagnostics", "asked"),
    [
        ([_provider_error(retryAfterMs=2500)], 2500.0),
        ([_provider_error(retryAfterMs=0)], 0.0),  # "retry now" is an answer too
        ([_provider_error(retryAfterMs=1.5)], 1.5),
        ([_provider_error(retryAfterMs=-1)], None),
        ([_provider_error(retryAfterMs=True)], None),
        ([_provider_error(retryAfterMs="2500")], None),
        ([_provider_error(retryable=True)], None),
        ([pi_sdk.types.Diagnostic(type="provider_error")], None),
        ([pi_sdk.types.Diagnostic(type="other", details={"retryAfterMs": 5})], None),
        ([_provider_error(), _provider_error(retryAfterMs=7)], 7.0),  # the first that says
        ([], None),
    ],
)
def test_the_wait_a_server_asked_for(diagnostics: list[Any], asked: float | None):
    found = requested_retry_delay_ms(_failed("429", *diagnostics))
    assert found == asked and type(found) is type(asked)  # milliseconds as a float


@pytest.mark.parametrize(
    ("diagnostic", "retryable"),
    [
        (_provider_error(retryable=False), False),  # the status the stream saw decides
        (_provider_error(retryable="no"), True),  # not a bool: the text decides
        (pi_sdk.types.Diagnostic(type="other", details={"retryable": False}), True),
        (pi_sdk.types.Diagnostic(type="provider_error"), True),
    ],
)
def test_only_a_provider_error_s_boolean_overrides_the_text(diagnostic: Any, retryable: bool):
    assert is_retryable_assistant_error(_failed("503 unavailable", diagnostic)) is retryable


def test_a_policy_that_ignores_retry_after_waits_its_own_backoff():
    asked = _failed("429", _provider_error(retryAfterMs=2500))
    policy = RetryPolicy(base_delay_ms=100, jitter=0, honour_retry_after=False)
    assert policy.delay_ms(1, asked) == 100 and policy.delay_ms(2, asked) == 200
    assert RetryPolicy(base_delay_ms=100, jitter=0).delay_ms(1, asked) == 2500


def test_only_a_failed_message_with_a_text_can_be_retried():
    failed = pi_sdk.AssistantMessage(api="a", provider="p", model="m")
    failed.stop_reason, failed.error_message = "error", "503 Service Unavailable"
    assert is_retryable_assistant_error(failed)
    assert RetryPolicy().should_retry(failed)
    assert not RetryPolicy(enabled=False).should_retry(failed)
    failed.error_message = ""
    assert not is_retryable_assistant_error(failed)
    done = pi_sdk.AssistantMessage(api="a", provider="p", model="m", error_message="503 x")
    assert done.stop_reason == "stop" and not is_retryable_assistant_error(done)
    assert not RetryPolicy().should_retry(done)


def test_an_abort_callback_added_outside_a_loop_runs_at_the_abort():
    controller = pi_sdk.AbortController()
    ran: list[str] = []
    controller.signal.add_callback(lambda: ran.append(threading.current_thread().name))
    assert ran == []
    controller.abort()
    assert ran == [threading.current_thread().name]


async def test_an_abort_from_another_thread_runs_the_callback_on_its_loop():
    controller = pi_sdk.AbortController()
    ran: list[int] = []
    controller.signal.add_callback(lambda: ran.append(threading.get_ident()))
    worker = threading.Thread(target=controller.abort)
    worker.start()
    worker.join()
    assert ran == []  # handed to the loop, not run in the aborting thread
    await asyncio.sleep(0)
    assert ran == [threading.get_ident()]


def test_a_server_tool_block_as_text_keeps_non_ascii_and_is_cut_at_the_limit():
    call = ServerToolCall(id="s1", name="web_search", arguments={"query": "café 東京"})
    assert server_block_text(call) == '[server tool web_search: {"query":"café 東京"}]'
    assert server_block_text(_result({"n": "é"})) == '[code_execution_result] {"n":"é"}'
    limit = 4000  # characters, MAX_SUMMARY_CHARS (a literal: the test pins its value)
    head = '[code_execution_result] {"n":"'
    for length, cut in ((limit, False), (limit + 1, True)):
        fill = "x" * (length - len(head) - 2)
        text = server_block_text(_result({"n": fill}))
        whole = f'{head}{fill}"}}'
        assert len(whole) == length
        assert text == (whole[: limit - 1] + "…" if cut else whole)
        assert len(text) == limit
    long_call = ServerToolCall(id="s1", name="web_search", arguments={"q": "y" * limit})
    assert len(server_block_text(long_call)) == limit
    assert server_block_text(long_call).endswith("y…")


def test_the_validation_message_shows_the_arguments_as_pi_mono_does():
    """``JSON.stringify(args, null, 2)``: two-space indent, non-ASCII as it is (the model reads
    it); a value JSON has no form for is shown as its ``str``."""
    text = format_validation_error(
        "book", [("city", "must be string")], {"city": 7, "note": "café", "at": Decimal("1.5")}
    )
    assert text == (
        'Validation failed for tool "book":\n  - city: must be string\n\nReceived arguments:\n'
        '{\n  "city": 7,\n  "note": "café",\n  "at": "1.5"\n}'
    )
    assert format_validation_error("book", [], {}).splitlines()[1] == (
        "  - root: Unknown validation error"
    )
