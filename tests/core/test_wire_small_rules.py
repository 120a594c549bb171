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
from pi_sdk._wire.retry_policy import RetryPolicy, is_retryable_assistant_error
from pi_sdk._wire.server_tools import MAX_SUMMARY_CHARS, server_block_text
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
    head = '[code_execution_result] {"n":"'
    for length, cut in ((MAX_SUMMARY_CHARS, False), (MAX_SUMMARY_CHARS + 1, True)):
        fill = "x" * (length - len(head) - 2)
        text = server_block_text(_result({"n": fill}))
        whole = f'{head}{fill}"}}'
        assert len(whole) == length
        assert text == (whole[: MAX_SUMMARY_CHARS - 1] + "…" if cut else whole)
        assert len(text) == MAX_SUMMARY_CHARS
    long_call = ServerToolCall(id="s1", name="web_search", arguments={"q": "y" * MAX_SUMMARY_CHARS})
    assert len(server_block_text(long_call)) == MAX_SUMMARY_CHARS
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
