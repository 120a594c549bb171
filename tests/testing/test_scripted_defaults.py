"""The scripted provider's defaults (``pi_sdk/_testing/scripted.py``): what a reply built with
no options streams. A test written against the documented defaults (8 characters per delta, no
pause, ``call_1``, ``call_2``... for tool calls without an id, no retry through ``stream_fn``)
must see exactly those.
"""

from __future__ import annotations

import importlib.util

import pytest
from _support.agent import isolated_plugins, user  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk._testing import scripted
from pi_sdk.provider import ProviderError
from pi_sdk.testing import ScriptedProvider, ScriptedReply

TEXT = "The quick brown fox jumps over the lazy dog"  # 43 characters
EIGHTS = ["The quic", "k brown ", "fox jump", "s over t", "he lazy ", "dog"]


def _context() -> pi_sdk.Context:
    return pi_sdk.Context(messages=[user("x")])


async def _deltas(reply: ScriptedReply) -> dict[str, list[str]]:
    provider = ScriptedProvider([reply])
    deltas: dict[str, list[str]] = {}
    async for event in provider.stream_fn(provider.model, _context()):
        if event.type.endswith("_delta"):
            deltas.setdefault(event.type, []).append(event.delta)  # type: ignore[union-attr]
    return deltas


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (pi_sdk.TextContent(text=TEXT), "text_delta"),
        (pi_sdk.ThinkingContent(thinking=TEXT), "thinking_delta"),
        (pi_sdk.ToolCall(id="c", name="t", arguments={}, invalid_arguments=TEXT), "toolcall_delta"),
    ],
)
async def test_a_reply_without_a_chunk_size_streams_eight_characters_per_delta(
    block: scripted.ScriptedBlock, kind: str
):
    assert ScriptedReply().chunk_size == 8
    assert await _deltas(ScriptedReply(content=[block])) == {kind: EIGHTS}


@pytest.mark.parametrize(
    ("text", "deltas"),
    [
        ("12345678", ["12345678"]),  # exactly one chunk: one delta
        ("123456789", ["12345678", "9"]),
        ("1234567", ["1234567"]),
    ],
)
async def test_the_default_chunk_boundary_is_after_the_eighth_character(
    text: str, deltas: list[str]
):
    assert await _deltas(ScriptedReply.text(text)) == {"text_delta": deltas}


async def test_a_reply_without_a_delay_never_sleeps(monkeypatch: pytest.MonkeyPatch):
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(scripted.asyncio, "sleep", sleep)
    reply = ScriptedReply.tool_call("t", {"a": 1}, text="hi")
    assert reply.delay_ms == 0
    provider = ScriptedProvider([reply])
    message = await provider.stream_fn(provider.model, _context()).result()
    assert (message.text, message.tool_calls[0].arguments) == ("hi", {"a": 1})
    assert slept == []


async def test_tool_calls_without_an_id_are_numbered_from_one_per_provider():
    reply = ScriptedReply(
        content=[
            pi_sdk.ToolCall(id="", name="a", arguments={}),
            pi_sdk.ToolCall(id="given", name="b", arguments={}),
            pi_sdk.ToolCall(id="", name="c", arguments={}),
        ]
    )
    first, second = ScriptedProvider([reply, reply]), ScriptedProvider([reply])
    ids = []
    for provider in (first, first, second):
        message = await provider.stream_fn(provider.model, _context()).result()
        ids.append([call.id for call in message.tool_calls])
    assert ids == [
        ["call_1", "given", "call_2"],
        ["call_3", "given", "call_4"],
        ["call_1", "given", "call_2"],
    ]


def _rate_limited(call: scripted.ScriptedCall) -> ScriptedReply:
    raise ProviderError("429 Too Many Requests", status=429, retryable=True)


async def test_stream_fn_never_retries_so_each_stream_takes_one_script_entry():
    provider = ScriptedProvider([_rate_limited, "after the limit"])
    message = await provider.stream_fn(provider.model, _context()).result()
    assert (message.stop_reason, message.error_message) == ("error", "429 Too Many Requests")
    assert (len(provider.calls), provider.remaining) == (1, 1)
    message = await provider.stream_fn(provider.model, _context()).result()
    assert (message.stop_reason, message.text) == ("stop", "after the limit")
    assert (len(provider.calls), provider.remaining) == (2, 0)


def test_default_model_ids_count_from_scripted_1_in_a_fresh_import():
    # The module's counter lives as long as the process: a fresh copy of the module starts it.
    spec = importlib.util.find_spec("pi_sdk._testing.scripted")
    assert spec is not None and spec.loader is not None
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    ids = [fresh.ScriptedProvider().model.id for _ in range(3)]
    assert ids == ["scripted-1", "scripted-2", "scripted-3"]
    assert fresh.ScriptedProvider(model_id="mine").model.id == "mine"
    assert fresh.ScriptedProvider().model.id == "scripted-4"
