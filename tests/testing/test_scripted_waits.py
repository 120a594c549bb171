"""The scripted provider's waits and its routing failure (``pi_sdk/_testing/scripted.py``):
a reply that waits for an abort waits on the call's signal (forever without one) and then fails
as aborted; ``delay_ms`` pauses before every event; a model whose provider is gone fails naming
it; the ``repr`` counts what is left of the script.
"""

from __future__ import annotations

import asyncio

import pytest
from _support.agent import isolated_plugins, user  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk._testing import scripted
from pi_sdk.provider import ProviderError
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def _context() -> pi_sdk.Context:
    return pi_sdk.Context(messages=[user("x")])


async def _until_wait(provider: ScriptedProvider, options: pi_sdk.StreamOptions):  # noqa: ANN202
    """The provider's own generator, read up to its wait: the types of the events before it."""
    source = provider.stream(provider.model, _context(), options)
    types = [(await source.__anext__()).type for _ in range(4)]
    return source, types


async def test_a_reply_waiting_for_the_abort_fails_as_aborted_once_the_signal_fires():
    controller = pi_sdk.AbortController()
    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="so")])])
    source, types = await _until_wait(provider, pi_sdk.StreamOptions(signal=controller.signal))
    assert types == ["start", "text_start", "text_delta", "text_end"]
    waiting = asyncio.ensure_future(source.__anext__())
    for _ in range(5):
        await asyncio.sleep(0)
    assert not waiting.done()  # it waits for the signal, nothing else
    controller.abort()
    with pytest.raises(ProviderError) as caught:
        await waiting
    assert str(caught.value) == "Request was aborted"


async def test_without_a_signal_the_wait_never_ends_by_itself():
    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="so")])])
    source, _ = await _until_wait(provider, pi_sdk.StreamOptions())
    waiting = asyncio.ensure_future(source.__anext__())
    for _ in range(5):
        await asyncio.sleep(0)
    assert not waiting.done()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_a_delay_comes_before_every_event(monkeypatch: pytest.MonkeyPatch):
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(scripted.asyncio, "sleep", sleep)
    provider = ScriptedProvider([ScriptedReply.text("ab", delay_ms=250, chunk_size=1)])
    stream = provider.stream_fn(provider.model, _context())
    types = [event.type async for event in stream]
    assert types == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert slept == [0.25] * 6  # one before each event
    assert (await stream.result()).text == "ab"


async def test_a_scripted_model_whose_provider_is_gone_fails_naming_it():
    ScriptedProvider([])  # the scripted API is registered
    model = pi_sdk.Model(id="scripted-gone", api="scripted", provider="scripted")
    message = await pi_sdk.complete(model, _context())
    assert message.stop_reason == "error"
    assert (
        message.error_message == "no ScriptedProvider is alive for scripted model 'scripted-gone'"
    )


def test_the_repr_counts_the_replies_left():
    provider = ScriptedProvider(["a", "b"], model_id="scripted-repr")
    assert repr(provider) == "ScriptedProvider(model_id='scripted-repr', remaining=2)"
    provider.add("c")
    assert repr(provider) == "ScriptedProvider(model_id='scripted-repr', remaining=3)"
