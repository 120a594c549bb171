"""Calling conventions of the marked signatures in the otel plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

import pytest
from _support.signatures import convention_test

CONVENTIONS = [
    (
        "pi_sdk_otel.tracing:Tracing.__init__",
        "self, tracer_provider, *, meter_provider, capture_content",
    ),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)


def test_tracing_takes_its_tracer_provider_by_name_and_its_options_only_by_name() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from pi_sdk_otel.tracing import Tracing

    tracing = Tracing(tracer_provider=TracerProvider(), capture_content=True)
    assert repr(tracing) == "Tracing(capture_content=True)"
    with pytest.raises(TypeError):
        Tracing(TracerProvider(), None)  # pyright: ignore[reportCallIssue]
