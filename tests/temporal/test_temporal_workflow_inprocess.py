"""The agent workflow run in process, Temporal's calls answered by a fake (issue 34).

``AgentWorkflow`` is built from its input and ``run`` is awaited with ``workflow``'s
``execute_activity``, ``start_activity``, ``wait_condition`` and ``continue_as_new`` replaced:
what the workflow builds from its input (the Agent's settings, a continued run's queues), what
each activity is started with (the settings' timeouts, the call's fields), a tool that ends the
run, and the idle ``keep_open`` loop (closed, or continued-as-new when its history is full).
The server-backed tests (``client``/``shared_worker``) run the same code against Temporal.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from pi_sdk_temporal import _workflow
from pi_sdk_temporal._activities import DESCRIBE_ACTIVITY, MODEL_ACTIVITY, TOOL_ACTIVITY
from pi_sdk_temporal._wire import (
    ActivitySettings,
    AgentRunInput,
    Continued,
    ModelCall,
    ToolOutcome,
    ToolRun,
    ToolSpec,
    WorkerCatalog,
    message_to_json,
)
from pi_sdk_temporal._workflow import AgentWorkflow
from temporalio import workflow
from temporalio.common import RetryPolicy

import pi_sdk
from pi_sdk import AssistantMessage, TextContent, ToolCall, UserMessage

MODEL = pi_sdk.Model(id="m-1", api="toy", provider="toy")
TOOL = ToolSpec(name="t", description="a tool", parameters={"type": "object"}, label="T")


def _user(text: str, at: int) -> dict[str, Any]:
    return message_to_json(UserMessage(content=text, timestamp=at))


def _answer(*content: Any, stop: str) -> dict[str, Any]:
    message = AssistantMessage(
        content=list(content), api="toy", provider="toy", model="m-1", stop_reason=stop
    )
    return message_to_json(message)


class _ContinuedAsNew(Exception):  # noqa: N818 - Temporal's ContinueAsNewError plays this part
    pass


class FakeTemporal:
    """Answers the workflow's activities in order and records how each was started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *answers: Any) -> None:
        self.answers = list(answers)
        self.started: list[tuple[str, Any, dict[str, Any]]] = []
        self.described: list[list[Any]] = []
        self.described_with: list[dict[str, Any]] = []
        self.continued: list[AgentRunInput] = []
        self.replaying = False
        monkeypatch.setattr(workflow.unsafe, "is_replaying", lambda: self.replaying)
        monkeypatch.setattr(workflow, "execute_activity", self.execute)
        monkeypatch.setattr(workflow, "start_activity", self.start)
        monkeypatch.setattr(workflow, "wait_condition", self.wait)
        monkeypatch.setattr(workflow, "continue_as_new", self.continue_as_new)
        monkeypatch.setattr(_workflow, "history_full", lambda _input: False)  # reads workflow.info

    async def execute(self, name: str, *, args: list[Any], **options: Any) -> WorkerCatalog:
        assert name == DESCRIBE_ACTIVITY
        self.described.append(args)
        self.described_with.append(options)
        return WorkerCatalog(
            models={n: MODEL.model_dump(mode="json", by_alias=True) for n in args[0]},
            tools=[TOOL for n in args[1] if n == TOOL.name],
        )

    def start(self, name: str, arg: Any, **options: Any) -> asyncio.Future[Any]:
        self.started.append((name, arg, options))
        done = asyncio.get_running_loop().create_future()
        done.set_result(self.answers.pop(0))
        return done

    async def wait(self, condition: Any, **_: Any) -> None:
        assert condition(), "the workflow would wait forever here"

    def continue_as_new(self, next_input: AgentRunInput) -> None:
        self.continued.append(next_input)
        raise _ContinuedAsNew


FIELDS = [
    ("system_prompt", "be brief", lambda agent: agent.state.system_prompt),
    ("thinking_level", "high", lambda agent: agent.state.thinking_level),
    ("tool_execution", "sequential", lambda agent: agent.tool_execution),
    ("tool_steering", "skip", lambda agent: agent.tool_steering),
    ("steering_mode", "all", lambda agent: agent.steering_mode),
    ("follow_up_mode", "all", lambda agent: agent.follow_up_mode),
    ("tool_abort_grace_ms", 5.0, lambda agent: agent.tool_abort_grace_ms),
    (
        "options",
        {"temperature": 0.5},
        lambda agent: {"temperature": agent.stream_options.temperature},
    ),
]


@pytest.mark.parametrize(("name", "value", "read"), FIELDS, ids=[f[0] for f in FIELDS])
def test_each_input_setting_reaches_the_agent(name: str, value: Any, read: Any) -> None:
    default = AgentWorkflow(AgentRunInput(model="a"))
    assert read(default._agent) != value  # noqa: SLF001 - the value is not a default
    chosen = AgentWorkflow(AgentRunInput(model="a", **{name: value}))
    assert read(chosen._agent) == value  # noqa: SLF001


@pytest.mark.parametrize("model", ["b", ""])
def test_a_continued_run_takes_back_its_queues_prompts_count_and_model(model: str) -> None:
    steer, follow, queued = _user("steer", 2), _user("follow", 3), [_user("next", 4)]
    continued = Continued(
        resume=False,
        steering=[steer],
        follow_up=[follow],
        prompts=[queued],
        events_before=4,
        model=model,
    )
    run = AgentWorkflow(AgentRunInput(model="a", messages=[_user("hi", 1)], continued=continued))
    agent = run._agent  # noqa: SLF001
    assert [message_to_json(m) for m in agent.messages] == [_user("hi", 1)]
    assert [message_to_json(m) for m in run._sent] == [steer, follow]  # noqa: SLF001
    assert [message_to_json(m) for m in run._follow_ups] == [follow]  # noqa: SLF001
    assert [message_to_json(m) for m in agent.peek_queued_messages()] == [steer]
    agent.clear_steering_queue()
    assert [message_to_json(m) for m in agent.peek_queued_messages()] == [follow]
    assert run._prompts == [queued]  # noqa: SLF001
    assert run.state().events == 4 and run.events(4) == []
    assert run.state().model == (model or "a")  # an older input without the model: the input's


async def test_a_tool_that_ends_the_run_is_started_with_the_tool_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = ActivitySettings(
        model_timeout_s=11, tool_timeout_s=22, heartbeat_timeout_s=3, max_attempts=4
    )
    call = ToolCall(id="c1", name="t", arguments={"x": 1})
    fake = FakeTemporal(
        monkeypatch,
        _answer(call, stop="toolUse"),
        ToolOutcome(content=[{"type": "text", "text": "ok"}], details={"d": 1}, terminate=True),
    )
    prompt = [_user("go", 1)]
    input_ = AgentRunInput(
        model="m", prompt=prompt, tools=["t"], activities=settings, options={"max_tokens": 7}
    )
    run = AgentWorkflow(input_)
    result = await run.run(input_)

    assert fake.described == [[["m"], ["t"]]]
    (model_name, model_call, model_options), (tool_name, tool_run, tool_options) = fake.started
    assert (model_name, tool_name) == (MODEL_ACTIVITY, TOOL_ACTIVITY)
    assert isinstance(model_call, ModelCall) and model_call.model == "m"
    assert model_call.options["max_tokens"] == 7
    assert tool_run == ToolRun(tool="t", tool_call_id="c1", args={"x": 1})
    assert model_options["start_to_close_timeout"] == timedelta(seconds=11)
    assert tool_options["start_to_close_timeout"] == timedelta(seconds=22)
    for options in (model_options, tool_options):
        assert options["heartbeat_timeout"] == timedelta(seconds=3)
        assert options["retry_policy"].maximum_attempts == 4
        assert options["cancellation_type"] is (
            workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
        )
    assert run._terminating == {"c1"}  # noqa: SLF001 - no second model call: the tool ended it
    *_, tool_result = result.messages.value
    assert tool_result["role"] == "toolResult" and tool_result["details"] == {"d": 1}
    assert tool_result["content"] == [{"type": "text", "text": "ok"}]
    assert result.aborted is False


async def test_a_tool_outcome_with_an_error_is_the_tools_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    call = ToolCall(id="c1", name="t", arguments={})
    FakeTemporal(
        monkeypatch,
        _answer(call, stop="toolUse"),
        ToolOutcome(error="the tool broke"),
        _answer(TextContent(text="sorry"), stop="stop"),
    )
    input_ = AgentRunInput(model="m", prompt=[_user("go", 1)], tools=["t"])
    run = AgentWorkflow(input_)
    result = await run.run(input_)
    _, _, tool_result, last = result.messages.value
    assert tool_result["isError"] is True
    assert tool_result["content"] == [{"type": "text", "text": "the tool broke"}]
    assert last["content"] == [{"type": "text", "text": "sorry"}]
    assert run._terminating == set()  # noqa: SLF001


@pytest.mark.parametrize(
    ("closed", "full", "continues"),
    [
        (True, False, False),  # closed: the run completes
        (True, True, False),  # closed with a full history: completes, nothing to carry
        (False, True, True),  # idle, open and full: a fresh run waits for the next prompt
    ],
)
async def test_an_idle_open_workflow_completes_when_closed_or_continues_when_full(
    monkeypatch: pytest.MonkeyPatch, closed: bool, full: bool, continues: bool
) -> None:
    fake = FakeTemporal(monkeypatch)
    monkeypatch.setattr(_workflow, "history_full", lambda _input: full)
    input_ = AgentRunInput(model="m", keep_open=True)
    run = AgentWorkflow(input_)
    run.close() if closed else None
    if continues:
        with pytest.raises(_ContinuedAsNew):
            await run.run(input_)
        (carried,) = fake.continued
        assert carried.continued is not None and carried.continued.resume is False
        assert carried.keep_open is True
    else:
        result = await run.run(input_)
        assert (result.messages.value, result.aborted, fake.continued) == ([], False, [])
    assert fake.started == []  # no prompt: no model call


def test_a_fresh_workflow_starts_empty_idle_and_counting_from_zero() -> None:
    run = AgentWorkflow(AgentRunInput(model="a", messages=[_user("hi", 1)]))
    state = run.state()
    assert (state.model, state.events, state.is_streaming) == ("a", 0, False)
    assert (state.pending_tool_calls, state.error) == ([], None)
    assert state.messages == [_user("hi", 1)]
    assert run.events(0) == []
    assert (run._prompts, run._sent, run._follow_ups, run._terminating) == ([], [], [], set())  # noqa: SLF001
    assert (run._closed, run._continuing, run._switching) == (False, False, 0)  # noqa: SLF001


async def test_every_activity_is_started_with_the_settings_retry_policy_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Timeouts alone reach Temporal's retries: the policy backs off doubling from the
    settings' first interval, and a name the worker lacks is never retried."""
    settings = ActivitySettings(retry_initial_interval_s=3, max_attempts=4)
    fake = FakeTemporal(monkeypatch, _answer(TextContent(text="hi"), stop="stop"))
    input_ = AgentRunInput(model="m", prompt=[_user("go", 1)], activities=settings)
    await AgentWorkflow(input_).run(input_)
    policy = RetryPolicy(
        initial_interval=timedelta(seconds=3),
        backoff_coefficient=2.0,
        maximum_attempts=4,
        non_retryable_error_types=["RegistryError"],
    )
    assert fake.described_with == [
        {
            "result_type": WorkerCatalog,
            "start_to_close_timeout": timedelta(seconds=60),
            "retry_policy": policy,
        }
    ]
    ((_, _, model_options),) = fake.started
    assert model_options["retry_policy"] == policy


async def test_an_open_workflow_runs_queued_prompts_in_their_order_then_completes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeTemporal(
        monkeypatch,
        _answer(TextContent(text="one"), stop="stop"),
        _answer(TextContent(text="two"), stop="stop"),
        _answer(TextContent(text="three"), stop="stop"),
    )
    input_ = AgentRunInput(model="m", keep_open=True)
    run = AgentWorkflow(input_)
    for index, text in enumerate(["first", "second", "third"]):
        run.prompt([_user(text, index)])
    run.close()
    result = await run.run(input_)
    texts = [m["content"][0]["text"] if m["role"] == "assistant" else m["content"] for m in
             result.messages.value]  # fmt: skip
    assert texts == ["first", "one", "second", "two", "third", "three"]
    assert (result.aborted, len(fake.started), run._prompts) == (False, 3, [])  # noqa: SLF001


@pytest.mark.parametrize(
    ("stop", "aborted"), [("aborted", True), ("error", False), ("stop", False)]
)
async def test_the_result_says_aborted_only_when_the_last_answer_was(
    monkeypatch: pytest.MonkeyPatch, stop: str, aborted: bool
) -> None:
    FakeTemporal(monkeypatch, _answer(TextContent(text="partial"), stop=stop))
    input_ = AgentRunInput(model="m", prompt=[_user("go", 1)])
    result = await AgentWorkflow(input_).run(input_)
    assert [m["role"] for m in result.messages.value] == ["user", "assistant"]
    assert result.messages.value[-1]["stopReason"] == stop
    assert result.aborted is aborted


@pytest.mark.parametrize("replaying", [False, True])
async def test_observers_see_a_live_run_outside_the_sandbox_and_nothing_of_a_replay(
    monkeypatch: pytest.MonkeyPatch, plugin_manager: Any, replaying: bool
) -> None:
    """The workflow's gate: ``on_agent_event`` observers (pi-sdk-otel) are told each event of
    a live run with the sandbox's restrictions lifted, and nothing while it replays."""
    from pi_sdk.plugins import hookimpl

    fake = FakeTemporal(monkeypatch, _answer(TextContent(text="hi"), stop="stop"))
    fake.replaying = replaying
    seen: list[tuple[str, bool]] = []

    class Observer:
        @hookimpl
        def on_agent_event(self, event: Any) -> None:
            seen.append((event.type, workflow.unsafe.is_sandbox_unrestricted()))

    plugin_manager.register(Observer(), name="observer")
    input_ = AgentRunInput(model="m", prompt=[_user("go", 1)])
    result = await AgentWorkflow(input_).run(input_)
    assert [m["role"] for m in result.messages.value] == ["user", "assistant"]  # run whole
    if replaying:
        assert seen == []
    else:
        assert [t for t, _ in seen][:2] == ["agent_start", "turn_start"]
        assert seen[-1] == ("agent_end", True) and all(free for _, free in seen)
    assert workflow.unsafe.is_sandbox_unrestricted() is False  # lifted for observers only
