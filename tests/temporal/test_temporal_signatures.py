"""Calling conventions of the marked signatures in the Temporal plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

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


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
