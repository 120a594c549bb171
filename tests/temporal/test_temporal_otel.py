"""pi-sdk-otel in a durable run: the workflow's spans are made once, never again on replay.

The otel plugin's ``on_agent_event`` runs inside the workflow sandbox. Its first span imports
OpenTelemetry, which reads the environment at import: the sandbox refused that, so every span of
a durable run was lost (logged and ignored). And a workflow replayed from its history (a worker
restart, an evicted cache) emits its events again: without the workflow's observer gate each
replay made the run's spans a second time.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from typing import Any

import pi_sdk_otel
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pi_sdk_temporal import (
    PASSTHROUGH_MODULES,
    AgentRegistry,
    AgentWorkflow,
    agent_worker,
    prompt_input,
    start_agent,
)
from temporalio.worker import Replayer
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

import pi_sdk
from pi_sdk.testing import ScriptedProvider, ScriptedReply


@pi_sdk.tool
async def get_weather(city: str) -> str:
    """Return the weather.

    Args:
        city: The city.
    """
    return f"{city}: sunny"


@pytest.fixture
def exporter() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    pi_sdk_otel.configure(pi_sdk_otel.Tracing(provider))
    yield exporter
    pi_sdk_otel.reset()
    provider.shutdown()


def _names(exporter: Any) -> Counter[str]:
    return Counter(span.name for span in exporter.get_finished_spans())


async def test_a_durable_run_is_traced_once_and_a_replay_adds_no_span(
    client: Any, task_queue: str, exporter: Any, caplog: pytest.LogCaptureFixture
):
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("get_weather", {"city": "Paris"}), "Sunny in Paris."]
    )
    registry = AgentRegistry(tools=[get_weather], models={"m": provider.model})
    with caplog.at_level(logging.ERROR, logger="pi_sdk.plugins"):
        async with agent_worker(client, task_queue=task_queue, registry=registry):
            run = await start_agent(
                client,
                prompt_input("m", "Weather in Paris?", tools=["get_weather"]),
                id=f"otel-{uuid.uuid4().hex[:8]}",
                task_queue=task_queue,
            )
            await run.result()
    assert [r.getMessage() for r in caplog.records] == []  # no observer failed in the sandbox
    model = provider.model.id
    assert _names(exporter) == {
        "invoke_agent": 1,  # the workflow's, from agent events
        "turn": 2,
        "execute_tool get_weather": 1,
        f"chat {model}": 2,  # the model-call activities'
    }
    spans = {span.name: span for span in exporter.get_finished_spans()}
    run_span = spans["invoke_agent"]
    assert spans["execute_tool get_weather"].parent is not None
    assert {s.context.trace_id for s in exporter.get_finished_spans() if s.name == "turn"} == {
        run_span.context.trace_id
    }

    exporter.clear()
    history = await run.handle.fetch_history()
    replayer = Replayer(
        workflows=[AgentWorkflow],
        workflow_runner=SandboxedWorkflowRunner(
            restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
        ),
    )
    with caplog.at_level(logging.ERROR, logger="pi_sdk.plugins"):
        replayed = await replayer.replay_workflow(history)
    assert replayed.replay_failure is None
    assert list(exporter.get_finished_spans()) == []  # the replay traced nothing again
    assert [r.getMessage() for r in caplog.records] == []
