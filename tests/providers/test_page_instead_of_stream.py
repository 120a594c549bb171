"""A page where the stream should be says what it is, on every API (issue 15.6).

A captive portal or a proxy answers ``200`` with an HTML page: the call ends with an error that
names the status, the content type and an excerpt of the page, not "stream ended before
message_stop" or a malformed-event error. A stream under a ``text/plain`` content type is still
read as one.
"""

from __future__ import annotations

import pytest
from _support.loopback import APIS, HTML_ERROR_PAGE, Step, complete_once, text_reply

PORTAL = (
    b"<html><head><title>Hotel WiFi</title></head><body>Please log in to continue</body></html>"
)


def _expected(api: str) -> str:
    return "an AWS event stream" if api.startswith("bedrock") else "an event stream"


@pytest.mark.parametrize("api", APIS)
async def test_a_200_html_page_is_named(api: str) -> None:
    message = await complete_once(
        api, Step(200, {"content-type": "text/html; charset=utf-8"}, [PORTAL])
    )
    assert message.stop_reason == "error"
    assert message.error_message == (
        f"the server answered 200 with text/html, not {_expected(api)}:"
        " 'Hotel WiFi Please log in to continue'"
    )
    assert message.content == []


@pytest.mark.parametrize("api", APIS)
async def test_a_big_error_page_is_quoted_short(api: str) -> None:
    message = await complete_once(api, Step(200, {"content-type": "text/html"}, [HTML_ERROR_PAGE]))
    assert message.stop_reason == "error"
    error = message.error_message or ""
    assert error.startswith(f"the server answered 200 with text/html, not {_expected(api)}: '500")
    assert "<" not in error and len(error) < 400


@pytest.mark.parametrize("api", APIS)
async def test_a_page_without_a_content_type_is_named(api: str) -> None:
    message = await complete_once(api, Step(200, {}, [PORTAL]))
    assert message.error_message is not None
    assert message.error_message.startswith(
        f"the server answered 200 with no content type, not {_expected(api)}: 'Hotel WiFi"
    )


@pytest.mark.parametrize("api", [api for api in APIS if not api.startswith("bedrock")])
async def test_a_stream_sent_as_text_plain_is_still_read(api: str) -> None:
    step = text_reply(api, "Hello")
    step.headers = {"content-type": "text/plain"}
    message = await complete_once(api, step)
    assert message.stop_reason == "stop", message.error_message
    assert [block.text for block in message.content] == ["Hello"]  # pyright: ignore
