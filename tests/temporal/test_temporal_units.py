"""pi-sdk-temporal's logic outside a running workflow: the registry, the activities, the replies.

No Temporal server: the activities run in temporalio's ``ActivityEnvironment``; the workflow's
pure helpers (a model call's answer as a stream, an activity's failure as the loop's error, the
Agent's stop hook) are called with the state they read (issue 34: error paths and hooks pinned
where they are implemented).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from pi_sdk_temporal import AgentRegistry
from pi_sdk_temporal._activities import AgentActivities
from pi_sdk_temporal._client import _prompt
from pi_sdk_temporal._registry import RegistryError
from pi_sdk_temporal._wire import message_to_json
from pi_sdk_temporal._workflow import ActivityFailed, AgentWorkflow, _Reply, _until_aborted
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError
from temporalio.testing import ActivityEnvironment

import pi_sdk
from pi_sdk import (
    AbortController,
    AgentTool,
    AgentToolResult,
    AssistantMessage,
    TextContent,
    UserMessage,
)

MODEL = pi_sdk.Model(id="m-1", api="toy", provider="toy")


def answer(stop: str = "stop", error: str | None = None, text: str = "hi") -> AssistantMessage:
    return AssistantMessage(
        api="toy",
        provider="toy",
        model="m-1",
        content=[TextContent(text=text)],
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
    )


def a_tool(name: str) -> AgentTool:
    async def execute(*_: Any) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text=name)])

    return AgentTool(name=name, description=name, parameters={"type": "object"}, execute=execute)


# --- the registry -----------------------------------------------------------------------------


def test_the_registry_refuses_a_second_tool_of_one_name_and_names_what_it_knows() -> None:
    registry = AgentRegistry(tools=[a_tool("grep"), a_tool("cat")])
    with pytest.raises(ValueError) as caught:
        registry.add_tool(a_tool("grep"))
    assert str(caught.value) == "a tool named 'grep' is registered already"
    with pytest.raises(RegistryError) as missing:
        registry.tool("ls")
    assert str(missing.value) == "no tool 'ls' on this worker (known: cat, grep)"
    with pytest.raises(RegistryError) as none:
        registry.model("fast")
    assert str(none.value) == "no model 'fast' on this worker (known: none)"


def test_a_model_added_by_name_replaces_the_one_of_that_name() -> None:
    registry = AgentRegistry(models={"fast": MODEL})
    other = MODEL.model_copy(update={"id": "m-2"})
    registry.add_model("fast", other)
    registry.add_model("slow", MODEL)
    assert registry.model("fast") is other and registry.model("slow") is MODEL


# --- what goes over the wire ------------------------------------------------------------------


def test_only_message_models_are_sent() -> None:
    with pytest.raises(TypeError) as caught:
        message_to_json({"role": "user", "content": "hi"})  # type: ignore[arg-type]
    assert str(caught.value) == "cannot send dict to Temporal: not a message model"


def test_a_prompt_is_text_a_message_or_messages() -> None:
    user = UserMessage(content=[TextContent(text="second")])
    as_list = _prompt(["first", user])
    assert [m["role"] for m in as_list] == ["user", "user"]
    assert [m["content"][0]["text"] for m in as_list] == ["first", "second"]
    assert _prompt(user) == [message_to_json(user)]
    [alone], [listed] = _prompt("only"), _prompt(["only"])  # made a millisecond apart, maybe
    assert alone["timestamp"] - listed["timestamp"] in (0, -1)
    assert {**alone, "timestamp": 0} == {**listed, "timestamp": 0}


# --- a model call's answer in the workflow ----------------------------------------------------


@pytest.mark.parametrize("stop", ["pending", "deferred"])
def test_an_answer_pi_sdk_cannot_continue_fails_the_call(stop: str) -> None:
    with pytest.raises(ActivityFailed) as caught:
        _Reply(MODEL, answer(stop))
    assert str(caught.value) == f"the model call ended {stop!r}, which pi-sdk cannot continue"


async def test_an_answer_is_a_stream_of_its_terminal_event_and_its_result() -> None:
    done = answer("length")
    reply = _Reply(MODEL, done)
    events = [event async for event in reply]
    assert [(e.type, e.reason) for e in events] == [("done", "length")]  # type: ignore[union-attr]
    assert await reply.result() is done
    failed = _Reply(MODEL, answer("error", error="overloaded"))
    [event] = [event async for event in failed]
    assert (event.type, event.reason, event.error.error_message) == (  # type: ignore[union-attr]
        "error",
        "error",
        "overloaded",
    )


class _Handle:
    """An activity handle whose await raises ``error``; counts cancellations."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.cancelled = 0

    def cancel(self) -> None:
        self.cancelled += 1

    def __await__(self) -> Any:
        raise self.error
        yield  # pragma: no cover - makes this a generator


def _activity_error(cause: BaseException | None) -> ActivityError:
    error = ActivityError(
        "activity task failed",
        scheduled_event_id=1,
        started_event_id=2,
        identity="worker",
        activity_type="pi_agent_tool_call",
        activity_id="1",
        retry_state=None,
    )
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("cause", "text"),
    [
        (ApplicationError("no tool 'ls' on this worker", type="RegistryError"), None),
        (CancelledError("the activity was cancelled"), "the activity was cancelled"),
        (None, "activity task failed"),
    ],
)
async def test_a_failed_activity_is_the_loops_error_with_its_causes_text(
    cause: BaseException | None, text: str | None
) -> None:
    handle = _Handle(_activity_error(cause))
    controller = AbortController()
    with pytest.raises(ActivityFailed) as caught:
        await _until_aborted(handle, controller.signal)
    assert str(caught.value) == (text or "no tool 'ls' on this worker")
    controller.abort()  # the run's abort no longer reaches a finished activity
    assert handle.cancelled == 0


def test_a_model_not_from_the_registry_is_refused() -> None:
    known = {"fast": MODEL}
    state = SimpleNamespace(_models=known)
    assert AgentWorkflow._name_of(state, MODEL) == "fast"  # type: ignore[arg-type]  # noqa: SLF001
    stranger = MODEL.model_copy()  # equal, but not the registry's object
    with pytest.raises(ActivityFailed) as caught:
        AgentWorkflow._name_of(state, stranger)  # type: ignore[arg-type]  # noqa: SLF001
    assert str(caught.value) == "model 'm-1' is not one of the registry's"


@pytest.mark.parametrize("awaitable", [False, True])
async def test_the_subclass_stop_hook_is_asked_first_sync_or_async(awaitable: bool) -> None:
    asked: list[object] = []

    def hook(context: object) -> Any:
        asked.append(context)
        if not awaitable:
            return context == "stop"

        async def later() -> bool:
            return context == "stop"

        return later()

    state = SimpleNamespace(_user_should_stop=hook, _terminating=set(), _input=None)
    stop = SimpleNamespace(tool_results=[])
    go_on = SimpleNamespace(tool_results=[])
    assert await AgentWorkflow._should_stop(state, "stop") is True  # type: ignore[arg-type]  # noqa: SLF001
    assert await AgentWorkflow._should_stop(state, go_on) is False  # type: ignore[arg-type]  # noqa: SLF001
    assert asked == ["stop", go_on]
    state._user_should_stop = None  # noqa: SLF001
    assert await AgentWorkflow._should_stop(state, stop) is False  # type: ignore[arg-type]  # noqa: SLF001


# --- the activities ---------------------------------------------------------------------------


def _call(model: str = "fast") -> Any:
    from pi_sdk_temporal._wire import ModelCall

    context = pi_sdk.Context(messages=[UserMessage(content="hi")])
    return ModelCall(
        model=model, context=context.model_dump(mode="json", by_alias=True), options={}
    )


@pytest.mark.parametrize("which", ["describe", "call_model", "run_tool"])
async def test_an_unknown_name_is_a_non_retryable_registry_error(which: str) -> None:
    from pi_sdk_temporal._wire import ToolRun

    activities = AgentActivities(AgentRegistry(models={"fast": MODEL}, tools=[a_tool("grep")]))
    calls = {
        "describe": (activities.describe, ["fast", "slow"], []),
        "call_model": (activities.call_model, _call("slow")),
        "run_tool": (activities.run_tool, ToolRun(tool="ls", tool_call_id="c1", args={})),
    }
    function, *args = calls[which]
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(function, *args)
    kind = "tool 'ls'" if which == "run_tool" else "model 'slow'"
    known = "grep" if which == "run_tool" else "fast"
    assert caught.value.message == f"no {kind} on this worker (known: {known})"
    assert (caught.value.type, caught.value.non_retryable) == ("RegistryError", True)


class _Events:
    """A stream function's result: ``events`` then ``final``, or an error raised while read."""

    def __init__(self, final: AssistantMessage, error: Exception | None = None) -> None:
        self.final, self.error = final, error

    async def __aiter__(self) -> AsyncIterator[Any]:
        builder = pi_sdk.provider.MessageBuilder(MODEL)
        if self.error is not None:
            raise self.error
        builder.message = self.final
        for event in builder.done("stop", exact=True):
            yield event

    async def result(self) -> AssistantMessage:
        return self.final


@pytest.mark.parametrize(
    ("error", "text"), [(RuntimeError("socket gone"), "socket gone"), (KeyError(), "KeyError")]
)
async def test_a_stream_function_that_raises_fails_the_call_not_retried(
    error: Exception, text: str
) -> None:
    registry = AgentRegistry(models={"fast": MODEL}, stream_fn=lambda *_: _Events(answer(), error))
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(AgentActivities(registry).call_model, _call())
    assert (caught.value.message, caught.value.type, caught.value.non_retryable) == (
        text,
        type(error).__name__,
        True,
    )


async def test_events_reach_an_async_sink_and_a_failing_sink_drops_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    delivered: list[tuple[str, str]] = []

    async def sink(workflow_id: str, event: dict[str, Any]) -> None:
        delivered.append((workflow_id, event["type"]))

    def broken(workflow_id: str, event: dict[str, Any]) -> None:
        raise RuntimeError("sink down")

    reply = answer()
    for target in (sink, broken):
        registry = AgentRegistry(
            models={"fast": MODEL}, stream_fn=lambda *_: _Events(reply), event_sink=target
        )
        with caplog.at_level(logging.ERROR):
            final = await ActivityEnvironment().run(AgentActivities(registry).call_model, _call())
        assert final == message_to_json(reply)  # the call goes on whatever the sink does
    assert delivered == [("test", "done")]
    dropped = [r for r in caplog.records if "event sink raised" in r.getMessage()]
    [message] = [r.getMessage() for r in dropped]  # temporalio's activity logger adds its info
    assert message.startswith("pi-sdk-temporal event sink raised; event dropped (")
    assert str(dropped[0].exc_info[1]) == "sink down"  # type: ignore[index]
