"""The metrics: GenAI client metrics of every model call, and what it cost.

For each model call :class:`Metrics` records, on the meter provider the application installs
(OpenTelemetry's global one by default; a no-op until one is installed):

* ``gen_ai.client.operation.duration`` (histogram, ``s``): from the request to the final
  message; with ``error.type`` when the call failed;
* ``gen_ai.client.token.usage`` (histogram, ``{token}``): the input tokens (cached ones
  included, the conventions' rule) and the output tokens, told apart by ``gen_ai.token.type``
  (``input``, ``output``);
* ``gen_ai.client.operation.time_to_first_chunk`` (histogram, ``s``): from the request to the
  first streamed chunk (text, thinking or a tool call);
* ``pi_sdk.client.cost`` (counter, ``{USD}``): the call's cost from the catalog's prices, told
  apart by ``pi_sdk.cost.type`` (``input``, ``output``, ``cache_read``, ``cache_write``).

The common attributes are those of the GenAI conventions' metrics: ``gen_ai.operation.name``
(``chat``), ``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.response.model``,
``server.address`` / ``server.port``. The histograms use the conventions' advised bucket
boundaries. Token usage and cost are recorded when the call reported them (a call that failed
before any token records none); the time to first chunk is known for the model calls of agent
runs (their ``message_update`` events), not for a bare :func:`pi_sdk.stream` call, whose events
no observer hook sees. The conventions name no cost metric: ``pi_sdk.client.cost`` is pi-sdk's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_sdk import AssistantMessage

from . import attributes as attr

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram, Meter, MeterProvider

__all__ = [
    "COST",
    "COST_TYPE",
    "OPERATION_DURATION",
    "TIME_TO_FIRST_CHUNK",
    "TOKEN_TYPE",
    "TOKEN_USAGE",
    "Metrics",
]

OPERATION_DURATION = "gen_ai.client.operation.duration"
TOKEN_USAGE = "gen_ai.client.token.usage"
TIME_TO_FIRST_CHUNK = "gen_ai.client.operation.time_to_first_chunk"
COST = "pi_sdk.client.cost"
TOKEN_TYPE = "gen_ai.token.type"
COST_TYPE = "pi_sdk.cost.type"

_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
                     40.96, 81.92]  # fmt: skip
"""Seconds: the conventions' advice for ``gen_ai.client.operation.duration``."""
_TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                  16777216, 67108864]  # fmt: skip
"""Tokens: the conventions' advice for ``gen_ai.client.token.usage``."""
_METER_NAME = "pi_sdk_otel"


_HISTOGRAMS = {
    "duration": (OPERATION_DURATION, "s", "GenAI operation duration.", _DURATION_BUCKETS),
    "tokens": (
        TOKEN_USAGE, "{token}", "Number of input and output tokens used.", _TOKEN_BUCKETS
    ),
    "first_chunk": (
        TIME_TO_FIRST_CHUNK, "s", "Time to receive the first chunk of the response stream.",
        _DURATION_BUCKETS,
    ),
}  # fmt: skip
"""Attribute of :class:`_Instruments` -> the histogram's name, unit, description, buckets."""


class _Instruments:
    def __init__(self, meter: Meter) -> None:
        made: dict[str, Histogram] = {
            key: meter.create_histogram(
                name, unit=unit, description=text, explicit_bucket_boundaries_advisory=buckets
            )
            for key, (name, unit, text, buckets) in _HISTOGRAMS.items()
        }
        self.duration = made["duration"]
        self.tokens = made["tokens"]
        self.first_chunk = made["first_chunk"]
        self.cost: Counter = meter.create_counter(
            COST, unit="{USD}", description="What model calls cost, from the catalog's prices."
        )


class Metrics:
    """Records the metrics of model calls (module docstring) on a meter provider.

    Args:
        meter_provider: Where the metrics go; default: OpenTelemetry's global provider (a
            no-op until the application sets one), read on the first call.
    """

    def __init__(self, meter_provider: MeterProvider | None = None) -> None:
        self._provider = meter_provider
        self._instruments: _Instruments | None = None

    @property
    def instruments(self) -> _Instruments:
        """The four instruments, made once.

        The global provider's meter follows a provider the application installs later.
        """
        if self._instruments is None:
            from opentelemetry import metrics  # by the first call, not when discovered

            provider = self._provider or metrics.get_meter_provider()
            self._instruments = _Instruments(provider.get_meter(_METER_NAME, attr.scope_version()))
        return self._instruments

    def record(
        self,
        request: Mapping[str, Any],
        message: AssistantMessage,
        duration_s: float,
        first_chunk_s: float | None,
    ) -> None:
        """Record one finished call.

        Args:
            request: The call's request attributes (operation, provider, request model,
                server), as on its span.
            message: The call's final message (usage, cost, response model, outcome).
            duration_s: Seconds from the request to the final message.
            first_chunk_s: Seconds from the request to the first streamed chunk, if known.
        """
        common = {**request, attr.RESPONSE_MODEL: message.response_model or message.model}
        instruments = self.instruments
        error = attr.error_type(message)
        timed = {**common, attr.ERROR_TYPE: error} if error is not None else common
        instruments.duration.record(duration_s, timed)
        if first_chunk_s is not None:
            instruments.first_chunk.record(first_chunk_s, common)
        usage = message.usage
        every_input = usage.input + usage.cache_read + usage.cache_write  # the conventions' rule
        tokens = {"input": every_input, "output": usage.output}
        if any(tokens.values()):
            for kind, count in tokens.items():
                instruments.tokens.record(count, {**common, TOKEN_TYPE: kind})
        cost = usage.cost
        for kind, amount in (
            ("input", cost.input),
            ("output", cost.output),
            ("cache_read", cost.cache_read),
            ("cache_write", cost.cache_write),
        ):
            if amount > 0:
                instruments.cost.add(amount, {**common, COST_TYPE: kind})
