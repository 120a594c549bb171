"""An HTTP error whose body is cut short is still that status's error (Bedrock reads it itself).

The status is the error; a body the connection loses halfway only shortens its message. A
reset while reading it must not turn the reply into a connection error (which is retried
differently and names no status).
"""

from __future__ import annotations

import pytest
from _support.loopback import LoopbackServer, Step, model_at

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

API = "bedrock-converse-stream"


@pytest.mark.parametrize("end", ["rst", "close"])
async def test_an_error_body_cut_short_is_still_the_status_error(end: str) -> None:
    body = b'{"message": "The security token included in the request is inval'
    step = Step(status=403, headers={"content-type": "application/json"}, parts=(body,), end=end)
    async with LoopbackServer([step]) as server:
        model = model_at(API, server.url)
        context = Context(messages=[UserMessage(content="hi")])
        options = StreamOptions(api_key="cut-key", max_retries=0)
        message = await pi_sdk.complete(model, context, options)
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("403 Forbidden"), message.error_message
