"""Calling conventions of the marked signatures in the Temporal plugin.

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
        "pi_sdk_temporal._client:start_agent",
        "client, input, *, id, task_queue, workflow, **options",
    ),
    ("pi_sdk_temporal._client:AgentRun.__init__", "self, handle, *, client"),
    ("pi_sdk_temporal._client:AgentRun.events", "self, *, after, poll_s"),
    (
        "pi_sdk_temporal._registry:AgentRegistry.__init__",
        "self, *, tools, models, stream_fn, get_api_key, event_sink",
    ),
    (
        "pi_sdk_temporal._worker:agent_worker",
        "client, *, task_queue, registry, workflows, passthrough_modules, **options",
    ),
    ("pi_sdk_temporal._workflow:AgentWorkflow._continue_if_full", "self, input, *, resume"),
]


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected
