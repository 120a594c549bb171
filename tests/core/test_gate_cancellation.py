"""A call waiting at its collection's rate-limit gate (``pi_sdk/_stream/run.py``): cancelling the
task that waits propagates the cancellation (it is not turned into an aborted reply, which is
what an abort of the call's signal gives), and the waiter's place is given up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

import pi_sdk
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.provider import ApiProvider


async def _reply(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    out = new_assistant_message(model)
    yield pi_sdk.StartEvent(partial=out)
    yield pi_sdk.DoneEvent(reason="stop", message=out)


def _models() -> tuple[pi_sdk.Models, pi_sdk.Model]:
    model = pi_sdk.Model(id="m", api="gated-api", provider="gated")
    api = ApiProvider(api="gated-api", stream=_reply)
    provider = pi_sdk.Provider(id="gated", models=[model], apis=(api,))
    limits = {"gated": pi_sdk.RateLimit(requests=1, per_ms=3_600_000)}
    return pi_sdk.Models([provider], plugins=None, rate_limits=limits), model


async def test_cancelling_a_call_held_at_the_gate_propagates():
    models, model = _models()
    context = pi_sdk.Context(messages=[])
    assert (await models.complete(model, context)).stop_reason == "stop"  # the window is full
    held = asyncio.ensure_future(models.complete(model, context))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not held.done()
    held.cancel()
    with pytest.raises(asyncio.CancelledError):
        await held
    window = models.rate_limiter._windows["gated"]  # pyright: ignore[reportPrivateUsage]
    assert not window._waiters  # pyright: ignore[reportPrivateUsage]


async def test_aborting_a_call_held_at_the_gate_ends_it_aborted():
    models, model = _models()
    context = pi_sdk.Context(messages=[])
    await models.complete(model, context)
    controller = pi_sdk.AbortController()
    held = asyncio.ensure_future(
        models.complete(model, context, pi_sdk.StreamOptions(signal=controller.signal))
    )
    for _ in range(5):
        await asyncio.sleep(0)
    controller.abort()
    message = await held
    assert (message.stop_reason, message.error_message) == ("aborted", "Request was aborted")
