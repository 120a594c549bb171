"""Error text: one wording for the same failure on every wire API (pi_sdk._stream.provider_errors).

QA trials t02/t04: an HTML 5xx page went verbatim into ``error_message`` on Gemini (16 KB) while
OpenAI kept only "Error code: 500"; a reset connection read "ReadError"; a missing Anthropic
field read "'delta'" (a bare KeyError); bad JSON did not say which event.
"""

from __future__ import annotations

import errno
from typing import Any

import pytest
from _support.loopback import HTML_ERROR_PAGE as PAGE
from _support.loopback import complete_once, sse_step, text_events

import pi_sdk
from pi_sdk.provider import (
    body_excerpt,
    connection_error,
    describe_exception,
    http_error_message,
    malformed_event_error,
)

# --- core helpers -------------------------------------------------------------------------------


def test_body_excerpt_of_an_html_page_is_short_text() -> None:
    text = body_excerpt(PAGE)
    assert text.startswith("500 Internal Server Error Internal Server Error upstream & friends")
    assert "<" not in text and "color" not in text and "var x" not in text
    assert "  " not in text and "\n" not in text
    assert len(text) <= 300 and text.endswith("…")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (None, ""),
        (b"", ""),
        (b"  plain\n\ttext  ", "plain text"),
        ('{"a":  1,\n "b": "<x>"}', '{"a": 1, "b": "<x>"}'),  # not HTML: tags kept
        (b"\xff\xfebad bytes", "\ufffd\ufffdbad bytes"),
    ],
)
def test_body_excerpt_shapes(body: Any, expected: str) -> None:
    assert body_excerpt(body) == expected


def test_http_error_message() -> None:
    assert (
        http_error_message(429, code="rate_limit_error", message="Slow\n down", body=b"ignored")
        == "429 Too Many Requests: rate_limit_error: Slow down"
    )
    assert http_error_message(502, body=b"") == "502 Bad Gateway"
    assert http_error_message(502, reason="Bad Proxy", body=b"<h1>oops</h1>") == (
        "502 Bad Proxy: oops"
    )
    assert http_error_message(529, message="Overloaded") == "529: Overloaded"


def test_describe_exception_names_the_os_error_under_a_transport_error() -> None:
    try:
        try:
            raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
        except OSError as inner:
            raise RuntimeError("") from inner  # like httpx2.ReadError("")
    except RuntimeError as outer:
        assert describe_exception(outer) == "RuntimeError: [Errno 104] Connection reset by peer"
    assert describe_exception(ValueError("boom")) == "ValueError: boom"


@pytest.mark.parametrize(
    ("phase", "timed_out", "start"),
    [
        ("connect", False, "could not connect to the server: "),
        ("request", False, "connection closed by the server before the response: "),
        ("body", False, "connection lost while reading the response: "),
        ("request", True, "timed out waiting for the response: "),
    ],
)
def test_connection_errors_are_retryable_and_say_when(
    phase: Any, timed_out: bool, start: str
) -> None:
    error = connection_error(OSError("gone"), phase, timed_out=timed_out)
    assert isinstance(error, pi_sdk.provider.ProviderError) and error.retryable
    assert str(error) == f"{start}OSError: gone"


def test_malformed_event_error_says_which_event() -> None:
    error = malformed_event_error("{nope", event="content_block_delta", number=3, error=None)
    assert str(error) == "malformed stream event #3 ('content_block_delta'); data: '{nope'"


# --- adapters --------------------------------------------------------------------------------
# (The same failures on every wire API: tests/providers/test_contract.py.)


@pytest.mark.parametrize(
    ("delta_event", "expected"),
    [
        ({"type": "content_block_delta", "index": 0}, "missing 'delta'"),
        ({"type": "content_block_delta", "delta": {"type": "text_delta"}}, "missing 'index'"),
        (
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
            "missing 'text'",
        ),
        (
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 1}},
            "delta 'text' is not a string",
        ),
    ],
)
async def test_a_missing_anthropic_field_is_named(
    delta_event: dict[str, Any], expected: str
) -> None:
    events, terminal = text_events("anthropic-messages", ["Hel", "lo"])
    message = await complete_once(
        "anthropic-messages", sse_step([*events[:2], delta_event, *terminal])
    )
    assert message.error_message == f"malformed content_block_delta event: {expected}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("x" * 300, "x" * 300),  # exactly the default 300 characters: whole
        ("x" * 301, "x" * 299 + "…"),  # one more: cut to 300 with the mark
        ("x" * 298 + "  y" * 2, "x" * 298 + "…"),  # cut after a space: the space goes too
    ],
)
def test_body_excerpt_keeps_300_characters_and_marks_a_cut(body: str, expected: str) -> None:
    assert body_excerpt(body) == expected
    assert len(body_excerpt(body)) <= 300


@pytest.mark.parametrize(("late", "seen"), [(0, True), (1, False)])
def test_body_excerpt_reads_a_page_up_to_200_times_its_limit(late: int, seen: bool) -> None:
    """The work on a huge page is bounded: text past ``limit * 200`` characters is never read."""
    limit = 10
    page = "<p>" + " " * (limit * 200 - 3 - 1 + late) + "t"  # the "t" ends at 2000, or 2001
    assert body_excerpt(page, limit=limit) == ("t" if seen else "")
    assert body_excerpt("y" * 11, limit=limit) == "y" * 9 + "…"


def test_body_excerpt_drops_scripts_styles_and_comments_over_lines_in_any_case() -> None:
    page = (
        "<HTML><HEAD><SCRIPT type='x'>\nvar secret = 1;\n</SCRIPT>"
        "<Style>\nbody { color: red }\n</sTyle><!-- a\nnote --></HEAD>"
        "<BODY><H1>Bad\nGateway</H1> &amp; more</BODY></HTML>"
    )
    assert body_excerpt(page) == "Bad Gateway & more"
