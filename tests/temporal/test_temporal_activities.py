"""The worker's activities, every branch, run in Temporal's activity test environment (no server).

``run_tool``: the tool sees the durable call built from the activity's info (workflow id, run
id, attempt; ``""`` for a standalone activity without a workflow), its result or its failure
text comes back as the outcome, an unregistered tool is a non-retryable ``RegistryError``, and
its updates reach the event sink with the workflow id before the outcome. ``call_model``: the
key lookup (sync or async), the events sent to the sink without ``partial``, the final message
as pi JSON, an unknown model and a raising stream function as non-retryable errors.
``describe``: the catalog, and an unknown name. The sink itself: sync or async, and a raising
sink drops the event without failing the call. ``run_with_heartbeats``: only the workflow's
cancellation aborts the work and keeps its answer; a worker shutdown, a timeout or the work's
own cancellation propagates (Temporal runs the call again).
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from pi_sdk_temporal import AgentActivities, AgentRegistry, DurableToolCall, durable_tool_call
from pi_sdk_temporal._cancel import run_with_heartbeats
from pi_sdk_temporal._wire import ModelCall, ToolOutcome, ToolRun, ToolSpec, WorkerCatalog
from temporalio import activity
from temporalio.activity import ActivityCancellationDetails
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from pi_sdk import (
    AbortSignal,
    AgentTool,
    AgentToolResult,
    Context,
    ImageContent,
    TextContent,
    UserMessage,
)
from pi_sdk.testing import ScriptedProvider

ARGS_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def environment(**info: Any) -> ActivityEnvironment:
    env = ActivityEnvironment()
    defaults = {"workflow_id": "chat-1", "workflow_run_id": "run-9", "attempt": 1}
    env.info = dataclasses.replace(env.info, **{**defaults, **info})
    return env


class Recorder:
    """An event sink that records ``(workflow_id, event)``; sync or async."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, workflow_id: str, event: dict[str, Any]) -> None:
        self.events.append((workflow_id, event))

    async def async_sink(self, workflow_id: str, event: dict[str, Any]) -> None:
        self.events.append((workflow_id, event))


def weather_tool(seen: list[DurableToolCall | None]) -> AgentTool:
    async def execute(call_id: str, args: Any, signal: AbortSignal, on_update: Any) -> Any:
        seen.append(durable_tool_call())
        on_update(AgentToolResult.text(f"looking up {args['city']}"))
        return AgentToolResult.text(f"sunny in {args['city']}", details={"c": 21}, terminate=True)

    return AgentTool(
        name="weather", description="Weather.", parameters=ARGS_SCHEMA, execute=execute
    )


RUN = ToolRun(tool="weather", tool_call_id="toolu_1", args={"city": "Paris"})


def test_each_activity_is_registered_under_the_name_workflow_histories_record() -> None:
    # Workflow histories name the activities: a renamed one fails every run started before.
    activities = AgentActivities(AgentRegistry())
    names = [activity._Definition.from_callable(fn).name for fn in activities.all()]  # noqa: SLF001
    assert names == ["pi_agent_describe", "pi_agent_model_call", "pi_agent_tool_call"]


# --- run_tool -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "call"),
    [
        pytest.param(
            {"workflow_id": "chat-1", "workflow_run_id": "run-9", "attempt": 3},
            DurableToolCall(
                workflow_id="chat-1",
                run_id="run-9",
                tool_call_id="toolu_1",
                tool_name="weather",
                attempt=3,
            ),  # fmt: skip
            id="in-a-workflow",
        ),
        pytest.param(
            {"workflow_id": None, "workflow_run_id": None, "attempt": 1},
            DurableToolCall(
                workflow_id="", run_id="", tool_call_id="toolu_1", tool_name="weather", attempt=1
            ),
            id="standalone-activity",
        ),
    ],
)
async def test_the_tool_sees_the_durable_call_of_its_activity(
    info: dict[str, Any], call: DurableToolCall
) -> None:
    seen: list[DurableToolCall | None] = []
    activities = AgentActivities(AgentRegistry(tools=[weather_tool(seen)]))
    outcome = await environment(**info).run(activities.run_tool, RUN)
    assert seen == [call]
    assert seen[0] is not None and seen[0].idempotency_key == f"{call.run_id}/toolu_1"
    assert outcome == ToolOutcome(
        content=[{"type": "text", "text": "sunny in Paris"}], details={"c": 21}, terminate=True
    )
    assert durable_tool_call() is None  # only while the tool runs


async def test_every_block_kind_of_a_tool_result_crosses_as_pi_json() -> None:
    blocks = [
        TextContent(text="a chart", text_signature="sig"),
        ImageContent(data="aGVsbG8=", mime_type="image/png"),
    ]

    async def execute(call_id: str, args: Any, signal: AbortSignal, on_update: Any) -> Any:
        return AgentToolResult(content=list(blocks), details=[1, "x"])

    tool = AgentTool(name="weather", parameters=ARGS_SCHEMA, execute=execute)
    outcome = await environment().run(AgentActivities(AgentRegistry(tools=[tool])).run_tool, RUN)
    assert outcome == ToolOutcome(
        content=[
            {"type": "text", "text": "a chart", "textSignature": "sig"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
        ],
        details=[1, "x"],
    )


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_tool_updates_reach_the_sink_with_the_workflow_id_before_the_outcome(kind: str):
    recorder = Recorder()
    sink = recorder if kind == "sync" else recorder.async_sink
    activities = AgentActivities(AgentRegistry(tools=[weather_tool([])], event_sink=sink))
    await environment().run(activities.run_tool, RUN)
    assert recorder.events == [
        (
            "chat-1",
            {
                "type": "tool_execution_update",
                "toolCallId": "toolu_1",
                "toolName": "weather",
                "args": {"city": "Paris"},
                "partialResult": {
                    "content": [{"type": "text", "text": "looking up Paris"}],
                    "details": None,
                },
            },
        )
    ]


async def test_a_raising_sink_drops_the_event_and_the_call_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(workflow_id: str, event: dict[str, Any]) -> None:
        raise RuntimeError("sink down")

    activities = AgentActivities(AgentRegistry(tools=[weather_tool([])], event_sink=broken))
    outcome = await environment().run(activities.run_tool, RUN)
    assert outcome.content == [{"type": "text", "text": "sunny in Paris"}]
    (record,) = caplog.records
    # temporalio's activity logger appends the activity's info in parentheses
    assert (record.levelname, record.msg.split(" ({")[0]) == (
        "ERROR",
        "pi-sdk-temporal event sink raised; event dropped",
    )
    assert record.exc_info is not None and str(record.exc_info[1]) == "sink down"


@pytest.mark.parametrize(
    ("error", "text"),
    [
        pytest.param(RuntimeError("the tool failed"), "the tool failed", id="with-a-message"),
        pytest.param(KeyError(), "KeyError", id="without-a-message"),
    ],
)
async def test_a_tool_that_raises_gives_its_error_text(error: Exception, text: str) -> None:
    async def execute(call_id: str, args: Any, signal: AbortSignal, on_update: Any) -> Any:
        raise error

    tool = AgentTool(name="weather", parameters=ARGS_SCHEMA, execute=execute)
    outcome = await environment().run(AgentActivities(AgentRegistry(tools=[tool])).run_tool, RUN)
    assert outcome == ToolOutcome(error=text)


async def test_arguments_that_fail_validation_give_the_validation_text() -> None:
    tool = weather_tool([])
    outcome = await environment().run(
        AgentActivities(AgentRegistry(tools=[tool])).run_tool,
        ToolRun(tool="weather", tool_call_id="toolu_1", args={}),
    )
    assert outcome == ToolOutcome(
        error='Validation failed for tool "weather":\n'
        "  - city: must have required property 'city'\n\n"
        "Received arguments:\n{}"
    )


async def test_a_tool_the_worker_does_not_have_is_not_retried() -> None:
    activities = AgentActivities(AgentRegistry(tools=[weather_tool([])]))
    with pytest.raises(ApplicationError) as caught:
        await environment().run(activities.run_tool, dataclasses.replace(RUN, tool="charge"))
    error = caught.value
    assert (error.message, error.type, error.non_retryable) == (
        "no tool 'charge' on this worker (known: weather)",
        "RegistryError",
        True,
    )


# --- call_model ----------------------------------------------------------------------------

CONTEXT = Context(messages=[UserMessage(content="hi")]).model_dump(mode="json", by_alias=True)


@pytest.mark.parametrize("kind", ["none", "sync", "async"])
async def test_a_model_call_streams_to_the_sink_and_returns_the_message(kind: str) -> None:
    scripted = ScriptedProvider(["Hello"])

    def sync_key(provider: str) -> str:
        return f"key-for-{provider}"

    async def async_key(provider: str) -> str:
        return f"key-for-{provider}"

    keys = {"none": None, "sync": sync_key, "async": async_key}
    recorder = Recorder()
    registry = AgentRegistry(
        models={"m": scripted.model},
        stream_fn=scripted.stream_fn,
        get_api_key=keys[kind],
        event_sink=recorder,
    )
    call = ModelCall(model="m", context=CONTEXT, options={"max_tokens": 99})
    message = await environment().run(AgentActivities(registry).call_model, call)
    (made,) = scripted.calls
    assert made.options.api_key == (None if kind == "none" else "key-for-scripted")
    assert made.options.max_tokens == 99
    assert [m.content for m in made.messages] == ["hi"]
    assert (message["role"], message["content"], message["stopReason"]) == (
        "assistant",
        [{"type": "text", "text": "Hello"}],
        "stop",
    )
    types = [event["type"] for _, event in recorder.events]
    assert types[0] == "start" and types[-1] == "done" and "text_delta" in types
    assert {workflow for workflow, _ in recorder.events} == {"chat-1"}
    assert not [event for _, event in recorder.events if "partial" in event]
    deltas = "".join(e["delta"] for _, e in recorder.events if e["type"] == "text_delta")
    assert deltas == "Hello"


async def test_a_model_the_worker_does_not_have_is_not_retried() -> None:
    registry = AgentRegistry(models={"m": ScriptedProvider().model})
    call = ModelCall(model="claude", context=CONTEXT, options={})
    with pytest.raises(ApplicationError) as caught:
        await environment().run(AgentActivities(registry).call_model, call)
    error = caught.value
    assert (error.message, error.type, error.non_retryable) == (
        "no model 'claude' on this worker (known: m)",
        "RegistryError",
        True,
    )


@pytest.mark.parametrize(
    ("error", "text"),
    [
        pytest.param(ValueError("bad stream"), "bad stream", id="with-a-message"),
        pytest.param(ValueError(), "ValueError", id="without-a-message"),
    ],
)
async def test_a_stream_function_that_raises_is_not_retried(error: Exception, text: str) -> None:
    def stream_fn(model: Any, context: Any, options: Any) -> Any:
        raise error

    registry = AgentRegistry(models={"m": ScriptedProvider().model}, stream_fn=stream_fn)
    call = ModelCall(model="m", context=CONTEXT, options={})
    with pytest.raises(ApplicationError) as caught:
        await environment().run(AgentActivities(registry).call_model, call)
    assert (caught.value.message, caught.value.type, caught.value.non_retryable) == (
        text,
        "ValueError",
        True,
    )


# --- describe ------------------------------------------------------------------------------


async def test_describe_gives_the_named_models_and_tools() -> None:
    scripted = ScriptedProvider(model_id="scripted-describe")
    registry = AgentRegistry(tools=[weather_tool([])], models={"m": scripted.model})
    catalog = await environment().run(AgentActivities(registry).describe, ["m"], ["weather"])
    assert catalog == WorkerCatalog(
        models={"m": scripted.model.model_dump(mode="json", by_alias=True)},
        tools=[
            ToolSpec(
                name="weather", description="Weather.", parameters=ARGS_SCHEMA, label="weather"
            )
        ],
    )


@pytest.mark.parametrize(
    ("models", "tools", "text"),
    [
        (["m", "gpt"], [], "no model 'gpt' on this worker (known: m)"),
        (["m"], ["weather", "charge"], "no tool 'charge' on this worker (known: weather)"),
    ],
)
async def test_describe_with_a_name_the_worker_does_not_have(
    models: list[str], tools: list[str], text: str
) -> None:
    registry = AgentRegistry(tools=[weather_tool([])], models={"m": ScriptedProvider().model})
    with pytest.raises(ApplicationError) as caught:
        await environment().run(AgentActivities(registry).describe, models, tools)
    assert (caught.value.message, caught.value.type, caught.value.non_retryable) == (
        text,
        "RegistryError",
        True,
    )


async def test_a_model_call_whose_work_is_cancelled_ends_cancelled_not_as_a_failure() -> None:
    """The work's own task cancelled (not Temporal's request): the cancellation propagates, so
    that Temporal retries the call; it is not the non-retryable failure of an error."""

    def stream_fn(model: Any, context: Any, options: Any) -> Any:
        raise asyncio.CancelledError

    registry = AgentRegistry(models={"m": ScriptedProvider().model}, stream_fn=stream_fn)
    call = ModelCall(model="m", context=CONTEXT, options={})
    with pytest.raises(asyncio.CancelledError):
        await environment().run(AgentActivities(registry).call_model, call)


# --- run_with_heartbeats: whose cancellation it is -------------------------------------------


async def _start_waiting_work(env: Any) -> tuple[asyncio.Future[str], list[str]]:
    """Work that waits for its abort, running under heartbeats in ``env`` once it has started:
    its future, and ``["cancelled"]`` once the work itself was cancelled."""
    started, seen = asyncio.Event(), list[str]()

    async def work(signal: AbortSignal) -> str:
        started.set()
        try:
            await signal.wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return f"aborted: {signal.reason}"

    running = asyncio.ensure_future(env.run(run_with_heartbeats, work))
    await started.wait()
    return running, seen


@pytest.mark.parametrize(
    ("details", "answered"),
    [
        pytest.param(ActivityCancellationDetails(cancel_requested=True), True, id="workflow"),
        pytest.param(
            ActivityCancellationDetails(cancel_requested=True, worker_shutdown=True),
            False,
            id="worker-shutdown",
        ),
        pytest.param(ActivityCancellationDetails(timed_out=True), False, id="timed-out"),
    ],
)
async def test_only_the_workflows_cancellation_aborts_the_work_and_keeps_its_answer(
    details: ActivityCancellationDetails, answered: bool
) -> None:
    env = environment(heartbeat_timeout=timedelta(seconds=30))
    running, seen = await _start_waiting_work(env)
    env.cancel(details)
    if answered:
        assert await running == ("aborted: The run was aborted (Temporal cancelled the activity)")
        assert seen == []
    else:
        with pytest.raises(asyncio.CancelledError):
            await running
        assert seen == ["cancelled"]  # the work itself was cancelled, not left running


async def test_a_cancellation_temporal_gave_no_details_for_cancels_the_work() -> None:
    """The activity's task cancelled by someone else (no cancellation details): not an abort."""
    env = environment(heartbeat_timeout=timedelta(seconds=30))
    running, seen = await _start_waiting_work(env)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(running, 10)
    assert seen == ["cancelled"]


async def test_work_that_cancels_itself_ends_cancelled_even_when_the_workflow_asked() -> None:
    env = environment(heartbeat_timeout=timedelta(seconds=30))
    started = asyncio.Event()

    async def work(signal: AbortSignal) -> str:
        started.set()
        await signal.wait()
        raise asyncio.CancelledError  # its own answer to the abort: nothing to return

    running = asyncio.ensure_future(env.run(run_with_heartbeats, work))
    await started.wait()
    env.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(running, 10)


@pytest.mark.parametrize(
    ("timeout", "interval"),
    [
        (timedelta(seconds=1.5), 0.5),
        (timedelta(seconds=9), 3.0),
        (None, 10.0),  # no heartbeat timeout: every 10 s
        (timedelta(0), 10.0),
    ],
)
async def test_the_work_heartbeats_at_once_then_every_third_of_the_heartbeat_timeout(
    monkeypatch: pytest.MonkeyPatch, timeout: timedelta | None, interval: float
) -> None:
    env = environment(heartbeat_timeout=timeout)
    beats: list[tuple[Any, ...]] = []
    env.on_heartbeat = lambda *details: beats.append(details)
    waits: list[float] = []
    done = asyncio.Event()

    async def sleep(delay: float, result: Any = None) -> Any:
        waits.append(delay)
        done.set()
        await asyncio.Event().wait()  # the next beat never comes: the work ends first

    async def work(signal: AbortSignal) -> str:
        await done.wait()
        return "answer"

    monkeypatch.setattr(asyncio, "sleep", sleep)
    assert await env.run(run_with_heartbeats, work) == "answer"
    assert (beats, waits) == ([()], [interval])
