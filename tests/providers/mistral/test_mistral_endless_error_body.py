"""An HTTP error whose body never ends still ends the call (pi-sdk-mistral reads the body itself).

The adapter reads an error body up to 1 MiB (``_ERROR_BODY_LIMIT``), then stops and closes the
response: a gateway that streams an error page without end, in pieces of any size, gives the
status error at once instead of a call waiting forever.
"""

from __future__ import annotations

import asyncio

import pytest
from _support.loopback import LoopbackServer, Step, model_at

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

API = "mistral-conversations"


@pytest.mark.parametrize("piece", [65_537, 100_000, 1 << 16], ids=["odd", "round", "64k"])
async def test_an_error_body_that_never_ends_is_cut_at_the_limit(piece: int) -> None:
    parts = tuple(b"x" * piece for _ in range((3 << 20) // piece))  # 3 MiB, then it hangs
    step = Step(status=503, headers={"content-type": "text/plain"}, parts=parts, end="hang")
    async with LoopbackServer([step]) as server:
        model = model_at(API, server.url)
        context = Context(messages=[UserMessage(content="hi")])
        options = StreamOptions(api_key="endless-key", max_retries=0)
        message = await asyncio.wait_for(pi_sdk.complete(model, context, options), 30)
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("503 Service Unavailable")
