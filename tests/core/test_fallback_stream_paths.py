"""The fallback stream's less travelled paths (``pi_sdk/_models/fallback_stream.py``).

A planned wire API stands in for vendors: each call plays the next plan of its model (blocks
opened, filled and maybe left open, then a failure or a normal end), so a cut can leave a text
or thinking block open, which the stream must close for the caller before the next model
continues. Covered: usage summed per model over its attempts, an ``on_attempt`` observer that
raises, a reply continued twice (the carried blocks stay in front, the signatures of another
model are dropped, the open blocks are closed at the cut), and a model that fails without
content between two continuations (the caller's partial takes the next model's identity).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import pi_sdk
from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy
from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk._stream.contract import ApiProvider
from pi_sdk.provider import ProviderError

API = "fallback-plan"
CUT = "connection lost while reading the response: ReadError"


@dataclass
class Plan:
    steps: list[Callable[[MessageBuilder], Events]] = field(default_factory=list)
    error: str | None = None
    usage: pi_sdk.Usage | None = None
    status: int | None = None


PLANS: dict[str, list[Plan]] = {}


async def _play(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> AsyncIterator[Any]:
    plan = PLANS[model.id].pop(0)
    builder = MessageBuilder(model)
    yield builder.start()
    for step in plan.steps:
        for event in step(builder):
            yield event
    if plan.usage is not None:
        builder.message.usage = plan.usage.model_copy(deep=True)
    if plan.error is not None:
        raise ProviderError(plan.error, status=plan.status, retryable=plan.status is None)
    for event in builder.done():
        yield event


@pytest.fixture(autouse=True)
def planned_api(plugin_manager: Any) -> None:
    PLANS.clear()
    pi_sdk.register_api_provider(ApiProvider(api=API, stream=_play))


def _model(model_id: str) -> pi_sdk.Model:
    return pi_sdk.Model(id=model_id, api=API, provider="plan")


def _text(text: str, *, close: bool = True, signature: str | None = None):
    def step(b: MessageBuilder) -> Events:
        events = b.open_text("t", text, signature=signature)
        return events + b.end_text("t") if close else events

    return step


def _thinking(text: str, *, close: bool = True, signature: str | None = None):
    def step(b: MessageBuilder) -> Events:
        events = b.open_thinking("k", text, signature=signature)
        return events + b.end_thinking("k") if close else events

    return step


async def _run(first: pi_sdk.Model, policy: FallbackPolicy) -> tuple[list[Any], Any, Any]:
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Go.")])
    options = pi_sdk.StreamOptions(max_retries=0, fallback=policy, api_key="k")
    stream = pi_sdk.stream(first, context, options)
    events = [event async for event in stream]
    return events, await stream.result(), stream


async def test_usage_by_model_sums_every_attempt_of_the_same_model() -> None:
    model = _model("m-1")
    spent = pi_sdk.Usage(input=10, output=2, cache_write_1h=4, total_tokens=12)
    spent.cost.input, spent.cost.total = 0.5, 0.5
    more = pi_sdk.Usage(input=5, output=3, reasoning=7, total_tokens=8)
    more.cost.output, more.cost.total = 0.25, 0.25
    PLANS["m-1"] = [
        Plan(error="503 Service Unavailable", status=503, usage=spent),
        Plan([_text("ok")], usage=more),
    ]
    policy = FallbackPolicy([FallbackEntry(model, {"max_tokens": 100})])
    _, message, stream = await _run(model, policy)
    assert message.text == "ok" and message.stop_reason == "stop"
    assert [(a.outcome, a.kind) for a in stream.attempts] == [
        ("failed", "overloaded"),
        ("answered", None),
    ]
    totals = stream.usage_by_model()
    assert list(totals) == ["plan/m-1"]
    total = totals["plan/m-1"]
    assert (total.input, total.output, total.total_tokens) == (15, 5, 20)
    assert (total.cache_write_1h, total.reasoning) == (4, 7)  # one side's count kept
    assert (total.cost.input, total.cost.output, total.cost.total) == (0.5, 0.25, 0.75)
    assert (total.cache_read, total.cost.cache_read) == (0, 0.0)


async def test_an_on_attempt_observer_that_raises_is_logged_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    def observer(attempt: Any) -> None:
        seen.append(f"{attempt.model}:{attempt.kind}")
        raise RuntimeError("observer broke")

    PLANS["a"] = [Plan(error="503 Service Unavailable", status=503)]
    PLANS["b"] = [Plan([_text("from b")])]
    policy = FallbackPolicy([_model("b")], on_attempt=observer)
    with caplog.at_level(logging.WARNING, logger="pi_sdk"):
        events, message, _ = await _run(_model("a"), policy)
    assert seen == ["a:overloaded"]
    assert message.text == "from b" and message.model == "b" and events[-1].type == "done"
    (record,) = [r for r in caplog.records if r.getMessage() == "fallback: on_attempt raised"]
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert str(record.exc_info[1]) == "observer broke"


async def test_a_reply_continued_twice_keeps_every_part_and_closes_what_was_open() -> None:
    PLANS["x"] = [Plan([_text("Part one, ", close=False, signature="sig-x")], error=CUT)]
    PLANS["y"] = [Plan([_text("part two; "), _thinking("pondering", close=False)], error=CUT)]
    PLANS["w"] = [Plan(error="503 Service Unavailable", status=503)]  # fails before any content
    PLANS["z"] = [Plan([_text("the end.")])]
    models = [_model(i) for i in "ywz"]
    policy = FallbackPolicy(models, after_content="continue")
    events, message, stream = await _run(_model("x"), policy)

    assert [(a.model, a.kind, a.moved_on, a.content_streamed) for a in stream.attempts] == [
        ("x", "connection", True, True),
        ("y", "connection", True, True),
        ("w", "overloaded", True, False),
        ("z", None, False, True),
    ]
    ends = [(e.type, e.content_index, e.content) for e in events if e.type.endswith("_end")]
    assert ends == [
        ("text_end", 0, "Part one, "),  # closed by the fallback at x's cut
        ("text_end", 1, "part two; "),
        ("thinking_end", 2, "pondering"),  # closed by the fallback at y's cut
        ("text_end", 3, "the end."),
    ]
    assert [e.type for e in events].count("start") == 1 and events[-1].type == "done"
    texts = [getattr(b, "text", None) or getattr(b, "thinking", None) for b in message.content]
    assert texts == ["Part one, ", "part two; ", "pondering", "the end."]
    assert message.content[0].text_signature is None  # x's signature is not z's to send
    assert (message.provider, message.model) == ("plan", "z")
    # z's events carry the whole reply so far, under z's identity (w's failure moved it on)
    z_deltas = [e for e in events if e.type == "text_delta" and e.delta == "the end."]
    (last,) = z_deltas
    assert last.content_index == 3 and last.partial.model == "z"
    assert [getattr(b, "text", None) for b in last.partial.content][:2] == [
        "Part one, ",
        "part two; ",
    ]
    # y was asked to continue x's partial, z to continue x's and y's
    assert [(d.error or {}).get("name") for d in message.diagnostics or []] == [
        "connection",
        "connection",
        "overloaded",
    ]
