"""pi-sdk-otel: the GenAI client metrics and the cost of model calls, on the in-memory reader."""

from __future__ import annotations

from typing import Any

import pi_sdk_otel
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from pi_sdk_otel import CAPTURE_CONTENT_ENV, Tracing

import pi_sdk
from pi_sdk import Agent
from pi_sdk.testing import ScriptedProvider, ScriptedReply
from pi_sdk.types import Cost, Usage

DELAY_S = 0.05
"""The scripted reply pauses this long before each event: a floor under the measured times."""


@pytest.fixture
def reader(plugin_manager: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    plugin_manager.register(pi_sdk_otel, name="otel")
    pi_sdk_otel.configure(Tracing(TracerProvider(), meter_provider=meters))
    yield reader
    pi_sdk_otel.reset()
    meters.shutdown()


def _points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    """Metric name -> its data points, from one collection."""
    found: dict[str, list[Any]] = {}
    data = reader.get_metrics_data()
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            assert scope.scope.name == "pi_sdk_otel"
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def _reply(text: str, usage: Usage) -> ScriptedReply:
    return ScriptedReply.text(text, usage=usage, delay_ms=DELAY_S * 1000)


USAGE = Usage(
    input=100,
    output=20,
    cache_read=30,
    cost=Cost(input=0.0003, output=0.0003, cache_read=0.00001, total=0.00061),
)


async def test_an_agent_call_records_duration_tokens_first_chunk_and_cost(reader: Any):
    provider = ScriptedProvider([_reply("Sunny.", USAGE)], provider="anthropic")
    agent = Agent(model=provider.model)
    await agent.prompt("Weather?")
    points = _points(reader)
    common = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": provider.model.id,
        "gen_ai.response.model": provider.model.id,
    }
    [duration] = points["gen_ai.client.operation.duration"]
    assert dict(duration.attributes) == common
    assert duration.count == 1 and duration.sum >= 3 * DELAY_S  # start, text, end: 3 pauses
    tokens = {p.attributes["gen_ai.token.type"]: p for p in points["gen_ai.client.token.usage"]}
    assert tokens["input"].sum == 130  # cached tokens count as input (the conventions' rule)
    assert tokens["output"].sum == 20
    assert dict(tokens["input"].attributes) == {**common, "gen_ai.token.type": "input"}
    [first] = points["gen_ai.client.operation.time_to_first_chunk"]
    assert dict(first.attributes) == common
    assert 2 * DELAY_S * 0.9 <= first.sum <= duration.sum  # after start and the first chunk
    cost = {p.attributes["pi_sdk.cost.type"]: p.value for p in points["pi_sdk.client.cost"]}
    assert cost == pytest.approx({"input": 0.0003, "output": 0.0003, "cache_read": 0.00001})


async def test_a_failed_call_records_its_error_type_and_no_tokens(reader: Any):
    provider = ScriptedProvider([ScriptedReply.failure("429 Too Many Requests: slow down")])
    message = await pi_sdk.complete(
        provider.model, pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
    )
    assert message.stop_reason == "error"
    points = _points(reader)
    [duration] = points["gen_ai.client.operation.duration"]
    assert duration.attributes["error.type"] == "429"
    assert "gen_ai.client.token.usage" not in points  # the call reported no token
    assert "pi_sdk.client.cost" not in points
    # A bare pi_sdk.stream call: no observer sees its events, so no first-chunk time.
    assert "gen_ai.client.operation.time_to_first_chunk" not in points


async def test_many_calls_add_up(reader: Any):
    replies = [ScriptedReply.text(f"answer {n}", usage=USAGE) for n in range(5)]
    provider = ScriptedProvider(replies)
    agent = Agent(model=provider.model)
    for n in range(5):
        await agent.prompt(f"question {n}")
    points = _points(reader)
    [duration] = points["gen_ai.client.operation.duration"]
    assert duration.count == 5
    output = next(
        p
        for p in points["gen_ai.client.token.usage"]
        if p.attributes["gen_ai.token.type"] == "output"
    )
    assert output.count == 5 and output.sum == 100
    assert sum(p.value for p in points["pi_sdk.client.cost"]) == pytest.approx(5 * 0.00061)
    [first] = points["gen_ai.client.operation.time_to_first_chunk"]
    assert first.count == 5


def _record(message: Any, first_chunk_s: float | None = None) -> tuple[dict[str, Any], Any]:
    from pi_sdk_otel.metrics import Metrics

    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    Metrics(meters).record({"gen_ai.operation.name": "chat"}, message, 1.5, first_chunk_s)
    metrics: dict[str, Any] = {}
    data = reader.get_metrics_data()
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                metrics[metric.name] = metric
    meters.shutdown()
    return metrics, reader


def _message(usage: Usage, **fields: Any) -> Any:
    from _support.messages import reply

    from pi_sdk import Model, TextContent

    message = reply(Model(id="m", api="a", provider="p"), TextContent(text="x"), **fields)
    message.usage = usage
    return message


def test_the_histograms_use_the_conventions_units_and_bucket_advice():
    usage = Usage(input=3, output=2, cache_read=1, cache_write=4)
    metrics, _ = _record(_message(usage), first_chunk_s=0.25)
    seconds = [0.01 * 2**i for i in range(14)]
    tokens = [4**i for i in range(14)]
    expected = {
        "gen_ai.client.operation.duration": ("s", seconds),
        "gen_ai.client.operation.time_to_first_chunk": ("s", seconds),
        "gen_ai.client.token.usage": ("{token}", tokens),
    }
    for name, (unit, bounds) in expected.items():
        metric = metrics[name]
        assert metric.unit == unit
        assert list(metric.data.data_points[0].explicit_bounds) == pytest.approx(bounds)
    [first] = metrics["gen_ai.client.operation.time_to_first_chunk"].data.data_points
    assert first.sum == 0.25
    [duration] = metrics["gen_ai.client.operation.duration"].data.data_points
    assert duration.sum == 1.5 and "error.type" not in duration.attributes
    counts = {
        p.attributes["gen_ai.token.type"]: p.sum
        for p in metrics["gen_ai.client.token.usage"].data.data_points
    }
    assert counts == {"input": 3 + 1 + 4, "output": 2}  # cache writes are input too


def test_one_side_of_the_tokens_is_enough_and_only_nonzero_costs_are_added():
    usage = Usage(input=0, output=5, cost=Cost(output=0.002, cache_write=0.001, total=0.003))
    metrics, _ = _record(_message(usage, response_model="m-2026"))
    points = metrics["gen_ai.client.token.usage"].data.data_points
    assert {p.attributes["gen_ai.token.type"]: p.sum for p in points} == {"input": 0, "output": 5}
    assert {p.attributes["gen_ai.response.model"] for p in points} == {"m-2026"}
    cost = metrics["pi_sdk.client.cost"]
    assert cost.unit == "{USD}"
    values = {p.attributes["pi_sdk.cost.type"]: p.value for p in cost.data.data_points}
    assert values == pytest.approx({"output": 0.002, "cache_write": 0.001})
    assert "gen_ai.client.operation.time_to_first_chunk" not in metrics


def test_an_aborted_call_is_timed_with_its_error_type():
    metrics, _ = _record(_message(Usage(), stop_reason="aborted", error_message="aborted"))
    [duration] = metrics["gen_ai.client.operation.duration"].data.data_points
    assert duration.attributes["error.type"] == "aborted"
    assert "gen_ai.client.token.usage" not in metrics and "pi_sdk.client.cost" not in metrics


class Ticks:
    """``time`` for the tracing module: each ``perf_counter()`` reads one second later."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


async def test_the_first_chunk_is_timed_at_the_first_update_of_the_reply_not_a_later_one(
    reader: Any, monkeypatch: pytest.MonkeyPatch
):
    """Start at 1 s, the first of five updates at 2 s, the reply at 3 s: first chunk 1 s."""
    from pi_sdk_otel import tracing as tracing_module

    monkeypatch.setattr(tracing_module, "time", Ticks())
    updates: list[str] = []
    provider = ScriptedProvider([ScriptedReply.text("x" * 24, usage=USAGE, chunk_size=8)])
    agent = Agent(model=provider.model)
    agent.subscribe(lambda event, signal=None: updates.append(event.type))
    await agent.prompt("Weather?")
    assert updates.count("message_update") == 5  # text start, three deltas, text end
    points = _points(reader)
    [first] = points["gen_ai.client.operation.time_to_first_chunk"]
    [duration] = points["gen_ai.client.operation.duration"]
    assert (first.count, first.sum, duration.count, duration.sum) == (1, 1.0, 1, 2.0)
