"""Every line ``pi-sdk serve`` logs about a request, whole: who, which model, how it ended.

``pi_sdk/_serve/outcome_log.py``: one line per proxied call (``done`` and ``aborted`` at INFO,
``error`` at WARNING, the vendor's HTTP status pulled out of the error text when it leads it)
and one per refused request (WARNING). The client is ``host:port`` from the ASGI scope's
``client`` pair, ``-`` when the server gave none; reasons are folded to one line and cut at
300 characters.
"""

from __future__ import annotations

import logging

import pytest

from pi_sdk import AssistantMessage, TextContent, Usage
from pi_sdk._serve.outcome_log import LOGGER_NAME, log_outcome, log_refusal

SCOPE = {"type": "http", "client": ("127.0.0.1", 51234)}


def _message(stop_reason: str = "stop", error: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text="hi")],
        api="faux",
        provider="faux",
        model="m",
        usage=Usage(input=12, output=7),
        stop_reason=stop_reason,  # type: ignore[arg-type]
        error_message=error,
    )


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    got: list[tuple[str, str]] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append((record.levelname, record.getMessage()))

    handler = Collect()
    logging.getLogger(LOGGER_NAME).addHandler(handler)
    yield got
    logging.getLogger(LOGGER_NAME).removeHandler(handler)


@pytest.mark.parametrize(
    ("scope", "shown"),
    [
        ({"client": ("10.0.0.5", 443)}, "10.0.0.5:443"),
        ({"client": ["::1", 8080]}, "::1:8080"),  # a list is a pair too
        ({"client": None}, "-"),  # ASGI: None when the server does not know
        ({}, "-"),
        ({"client": ("10.0.0.5",)}, "-"),
        ({"client": ("10.0.0.5", 443, 0)}, "-"),  # not a (host, port) pair
        ({"client": "10.0.0.5:443"}, "-"),
        (None, "-"),
    ],
)
def test_the_client_is_host_and_port_or_a_dash(scope, shown, lines) -> None:
    log_refusal(scope, 401, "bad token")
    assert lines == [("WARNING", f"{shown} 401 refused: bad token")]


def test_a_finished_call_logs_its_stop_reason_tokens_and_time(lines) -> None:
    log_outcome(SCOPE, "openai/gpt-4o", _message("toolUse"), None, 1.234)
    assert lines == [
        ("INFO", "127.0.0.1:51234 openai/gpt-4o 200 done (toolUse) 12 in · 7 out · 1.23 s")
    ]


def test_a_client_that_left_is_aborted_with_no_reason(lines) -> None:
    log_outcome(SCOPE, "openai/gpt-4o", None, None, 0.5)
    assert lines == [
        ("INFO", "127.0.0.1:51234 openai/gpt-4o 200 aborted: the client disconnected · 0.50 s")
    ]


def test_an_aborted_reply_logs_its_reason_or_a_dash(lines) -> None:
    log_outcome(SCOPE, "m/x", _message("aborted", "the request was aborted"), None, 2)
    log_outcome(SCOPE, "m/x", _message("aborted"), None, 2)
    assert lines == [
        ("INFO", "127.0.0.1:51234 m/x 200 aborted: the request was aborted · 2.00 s"),
        ("INFO", "127.0.0.1:51234 m/x 200 aborted: - · 2.00 s"),
    ]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("529 Overloaded", "error 529"),
        ("404 model not found", "error 404"),
        ("5290 is not a status", "error"),  # a status is three digits, then a word boundary
        ("600 not an HTTP status", "error"),
        ("timed out: the provider sent nothing for 50 ms", "error"),
    ],
)
def test_an_error_reply_is_a_warning_with_the_status_it_leads_with(text, label, lines) -> None:
    log_outcome(SCOPE, "m/x", _message("error", text), None, 0.25)
    assert lines == [("WARNING", f"127.0.0.1:51234 m/x 200 {label}: {text} · 0.25 s")]


def test_a_stream_function_that_raised_logs_the_error_sent_or_unknown(lines) -> None:
    log_outcome(SCOPE, "m/x", None, "401 invalid key", 0.1)
    log_outcome(SCOPE, "m/x", _message("error"), None, 0.1)
    assert lines == [
        ("WARNING", "127.0.0.1:51234 m/x 200 error 401: 401 invalid key · 0.10 s"),
        ("WARNING", "127.0.0.1:51234 m/x 200 error: unknown · 0.10 s"),
    ]


def test_reasons_are_folded_to_one_line_and_cut_at_300_characters(lines) -> None:
    log_refusal(SCOPE, 400, "line one\n  line\ttwo  ")
    log_refusal(SCOPE, 400, "y" * 300)
    log_refusal(SCOPE, 400, "z" * 301)
    assert lines == [
        ("WARNING", "127.0.0.1:51234 400 refused: line one line two"),
        ("WARNING", "127.0.0.1:51234 400 refused: " + "y" * 300),
        ("WARNING", "127.0.0.1:51234 400 refused: " + "z" * 299 + "…"),
    ]
