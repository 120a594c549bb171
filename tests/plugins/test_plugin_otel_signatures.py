"""Calling conventions of the marked signatures in the otel plugin.

Each row is a callable whose ``def`` has a bare ``*`` (keyword-only options after it) or ``/``
(positional-only parameters before it), and its parameters as the ``def`` lists them
(``_support.signatures.convention``). Callers rely on both sides of the marker: an option after
``*`` is refused by position (so a later parameter can be added before it), a parameter before
it is accepted by name (``Tracing(tracer_provider=...)``).
"""

from __future__ import annotations

import pytest
from _support.signatures import convention, resolve

CONVENTIONS = [
    (
        "pi_sdk_otel.tracing:Tracing.__init__",
        "self, tracer_provider, *, meter_provider, capture_content",
    ),
]


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected


def test_tracing_takes_its_tracer_provider_by_name_and_its_options_only_by_name() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from pi_sdk_otel.tracing import Tracing

    tracing = Tracing(tracer_provider=TracerProvider(), capture_content=True)
    assert repr(tracing) == "Tracing(capture_content=True)"
    with pytest.raises(TypeError):
        Tracing(TracerProvider(), None)  # pyright: ignore[reportCallIssue]
