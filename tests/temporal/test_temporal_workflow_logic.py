"""The agent workflow's own decisions, in process (no Temporal server; issue 34).

What the workflow decides without Temporal's help is called here with the state it reads:
when a history is full (the input's limits, else Temporal's suggestion), which queued messages
a continue-as-new carries (not yet in the transcript; steering and follow-ups kept apart), what
the next run's input holds, when the Agent stops for it (a turn whose tools go on), a model
switch (described once, counted while it runs), the ``events`` query's window, and the client's
event reader that follows a workflow across its continued runs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from pi_sdk_temporal import _history, _workflow
from pi_sdk_temporal._client import AgentRun
from pi_sdk_temporal._history import history_full, undelivered
from pi_sdk_temporal._wire import AgentRunInput, Continued, message_to_json
from pi_sdk_temporal._workflow import AgentWorkflow
from temporalio.client import WorkflowExecutionStatus

import pi_sdk
from pi_sdk import Agent, Tool, UserMessage

MODEL = pi_sdk.Model(id="m-1", api="toy", provider="toy")


class Info:
    def __init__(self, length: int, size: int, suggested: bool) -> None:
        self.length, self.size, self.suggested = length, size, suggested

    def get_current_history_length(self) -> int:
        return self.length

    def get_current_history_size(self) -> int:
        return self.size

    def is_continue_as_new_suggested(self) -> bool:
        return self.suggested


@pytest.mark.parametrize(
    ("max_events", "max_bytes", "length", "size", "suggested", "full"),
    [
        (None, None, 10**6, 10**9, False, False),  # no limits: only Temporal's suggestion
        (None, None, 0, 0, True, True),
        (100, None, 99, 10**9, True, False),  # limits given: the suggestion is not asked
        (100, None, 100, 0, False, True),
        (None, 1000, 10**6, 999, True, False),
        (None, 1000, 0, 1000, False, True),
        (100, 1000, 99, 999, False, False),
        (100, 1000, 100, 0, False, True),
        (100, 1000, 0, 1000, False, True),
    ],
)
def test_a_history_is_full_at_either_limit_or_when_temporal_suggests_without_limits(
    monkeypatch: pytest.MonkeyPatch,
    max_events: int | None,
    max_bytes: int | None,
    length: int,
    size: int,
    suggested: bool,
    full: bool,
) -> None:
    monkeypatch.setattr(_history.workflow, "info", lambda: Info(length, size, suggested))
    limits = AgentRunInput(model="m", history_max_events=max_events, history_max_bytes=max_bytes)
    assert history_full(limits) is full


def test_undelivered_messages_are_told_apart_by_identity() -> None:
    sent = [UserMessage(content="a"), UserMessage(content="a"), UserMessage(content="b")]
    transcript = [UserMessage(content="a"), sent[1]]  # an equal copy of sent[0] is not it
    assert undelivered(sent, transcript) == [sent[0], sent[2]]
    assert undelivered(sent, transcript)[0] is sent[0]
    assert undelivered([], transcript) == []


def _results(*ids: str) -> Any:
    return SimpleNamespace(tool_results=[SimpleNamespace(tool_call_id=i) for i in ids])


@pytest.mark.parametrize(
    ("ids", "terminating", "full", "stops"),
    [
        ((), set(), True, False),  # no tools: the run ends by itself
        (("a", "b"), {"a", "b"}, True, False),  # every tool ends the run
        (("a", "b"), {"a"}, True, True),  # the loop would go on: continue-as-new
        (("a",), set(), False, False),  # room left in the history
    ],
)
async def test_the_agent_stops_for_a_continue_as_new_only_when_its_turn_goes_on(
    monkeypatch: pytest.MonkeyPatch,
    ids: tuple[str, ...],
    terminating: set[str],
    full: bool,
    stops: bool,
) -> None:
    monkeypatch.setattr(_workflow, "history_full", lambda _input: full)
    state = SimpleNamespace(
        _user_should_stop=None, _terminating=terminating, _input=None, _continuing=False
    )
    assert await AgentWorkflow._should_stop(state, _results(*ids)) is stops  # type: ignore[arg-type]  # noqa: SLF001
    assert state._continuing is stops  # noqa: SLF001


@dataclass
class _SwitchState:
    models: dict[str, Any]
    described: list[list[str]] = field(default_factory=list)
    fail: bool = False

    def __post_init__(self) -> None:
        self._models = self.models
        self._agent = SimpleNamespace(model=None)
        self._model_name = "a"
        self._switching = 0
        self.seen_switching: list[int] = []

    async def _describe(self, models: list[str], tools: list[str]) -> None:
        self.seen_switching.append(self._switching)
        self.described.append(models)
        if self.fail:
            raise RuntimeError("describe failed")
        for name in models:
            self._models[name] = MODEL.model_copy(update={"id": name})


async def test_a_model_switch_describes_a_new_name_once_and_counts_while_it_runs() -> None:
    known = MODEL.model_copy(update={"id": "a"})
    state = _SwitchState({"a": known})
    await AgentWorkflow.set_model(state, "a")  # type: ignore[arg-type]
    assert (state.described, state._agent.model, state._model_name) == ([], known, "a")
    await AgentWorkflow.set_model(state, "b")  # type: ignore[arg-type]
    assert state.described == [["b"]] and state.seen_switching == [1]
    assert state._agent.model is state._models["b"] and state._model_name == "b"
    assert state._switching == 0
    await AgentWorkflow.set_model(state, "b")  # type: ignore[arg-type]
    assert state.described == [["b"]]  # described once

    failing = _SwitchState({"a": known}, fail=True)
    with pytest.raises(RuntimeError):
        await AgentWorkflow.set_model(failing, "c")  # type: ignore[arg-type]
    assert (failing._switching, failing._model_name, failing._agent.model) == (0, "a", None)


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [(0, 0, [0, 1, 2]), (0, 2, [2]), (0, 3, []), (5, 3, [0, 1, 2]), (5, 6, [1, 2]), (5, 9, [])],
)
def test_the_events_query_counts_from_the_workflows_first_run(
    before: int, after: int, expected: list[int]
) -> None:
    state = SimpleNamespace(_events=[0, 1, 2], _events_before=before)
    assert AgentWorkflow.events(state, after) == expected  # type: ignore[arg-type]


def _carry(
    monkeypatch: pytest.MonkeyPatch, *, resume: bool, continuing: bool, full: bool, previous: int
) -> Any:
    carried: list[Any] = []
    monkeypatch.setattr(_workflow, "history_full", lambda _input: full)
    monkeypatch.setattr(_workflow.workflow, "continue_as_new", carried.append)
    steer, follow, delivered = (UserMessage(content=t) for t in ("steer", "follow", "done"))
    agent = Agent(messages=[UserMessage(content="hi"), delivered])
    agent.state.base_tools = [Tool(name="t", description="d", parameters={"type": "object"})]
    state = SimpleNamespace(
        _continuing=continuing,
        _agent=agent,
        _sent=[steer, delivered, follow],
        _follow_ups=[follow],
        _prompts=[[{"role": "user", "content": "next"}]],
        _events_before=7,
        _events=[{}, {}, {}],
        _model_name="b",
    )
    earlier = Continued(resume=True, previous_runs=previous) if previous else None
    input_ = AgentRunInput(model="a", prompt=[{"role": "user", "content": "p"}], continued=earlier)
    AgentWorkflow._continue_if_full(state, input_, resume=resume)  # type: ignore[arg-type]  # noqa: SLF001
    return carried, (steer, follow, agent)


@pytest.mark.parametrize(
    ("resume", "continuing", "full", "goes"),
    [
        (True, False, True, False),  # a run that ended by itself: nothing to continue
        (True, True, False, True),  # the loop stopped for it
        (False, False, False, False),  # idle with room left
        (False, True, True, True),  # idle and full
    ],
)
def test_a_continue_as_new_happens_when_the_loop_stopped_for_it_or_an_idle_history_is_full(
    monkeypatch: pytest.MonkeyPatch, resume: bool, continuing: bool, full: bool, goes: bool
) -> None:
    carried, _ = _carry(monkeypatch, resume=resume, continuing=continuing, full=full, previous=0)
    assert len(carried) == int(goes)
    if goes:
        assert carried[0].continued.resume is resume


@pytest.mark.parametrize("previous", [0, 3])
def test_the_next_run_carries_the_transcript_queues_counts_model_and_base_tools(
    monkeypatch: pytest.MonkeyPatch, previous: int
) -> None:
    [next_input], (steer, follow, agent) = _carry(
        monkeypatch, resume=True, continuing=True, full=False, previous=previous
    )
    assert next_input.prompt == [] and next_input.model == "a"
    sent = next_input.messages.value  # encoded as is (Verbatim)
    assert sent == [message_to_json(m) for m in agent.messages]
    carried = next_input.continued
    assert carried.steering == [message_to_json(steer)]
    assert carried.follow_up == [message_to_json(follow)]
    assert carried.prompts == [[{"role": "user", "content": "next"}]]
    assert carried.events_before == 7 + 3
    assert carried.previous_runs == previous + 1
    assert carried.model == "b"
    assert carried.base_tools == [
        {"name": "t", "description": "d", "parameters": {"type": "object"}}
    ]


# --- the client's event reader ------------------------------------------------------------------


class _Handle:
    """A workflow run: ``log`` by event index, ``visible[i]`` events known at the i-th query."""

    def __init__(
        self, run_id: str, log: list[Any], visible: list[int], open_for: int, status: Any,
        next_run: str | None = None,
    ) -> None:  # fmt: skip
        self.id, self.run_id, self.first_execution_run_id = "wf", run_id, run_id
        self.log, self.visible, self.open_for = log, visible, open_for
        self.status, self.next_run = status, next_run
        self.queries: list[int] = []

    async def query(self, _query: Any, cursor: int) -> list[Any]:
        self.queries.append(cursor)
        known = self.visible.pop(0) if self.visible else len(self.log)
        return self.log[cursor:known]

    async def describe(self) -> Any:
        await asyncio.sleep(0)  # a reader that never stops still lets the test's limit end it
        self.open_for -= 1
        running = WorkflowExecutionStatus.RUNNING
        return SimpleNamespace(status=running if self.open_for >= 0 else self.status)

    async def fetch_history_events(self, **_: Any) -> Any:
        attrs = SimpleNamespace(new_execution_run_id=self.next_run)
        yield SimpleNamespace(
            HasField=lambda _name: self.next_run is not None,
            workflow_execution_continued_as_new_event_attributes=attrs,
        )


class _Client:
    def __init__(self, *handles: _Handle) -> None:
        self.handles = {h.run_id: h for h in handles}

    def get_workflow_handle(self, _id: str, *, run_id: str) -> _Handle:
        return self.handles[run_id]


async def _read(run: AgentRun, after: int = 0) -> list[Any]:
    async def read() -> list[Any]:
        return [event async for event in run.events(after=after, poll_s=0)]

    return await asyncio.wait_for(read(), 10)


DONE = WorkflowExecutionStatus.COMPLETED
CONTINUED = WorkflowExecutionStatus.CONTINUED_AS_NEW


async def test_events_are_read_in_order_until_the_run_closes_with_the_last_batch() -> None:
    handle = _Handle("r1", [0, 1, 2, 3], [2, 2, 3, 3], 1, DONE)
    assert await _read(AgentRun(handle)) == [0, 1, 2, 3]  # type: ignore[arg-type]
    assert handle.queries == [0, 2, 2, 3, 3]  # the last one after the close
    later = _Handle("r1", [0, 1, 2], [], 0, DONE)
    assert await _read(AgentRun(later), after=1) == [1, 2]  # type: ignore[arg-type]


async def test_an_open_run_with_nothing_new_is_polled_every_fifth_of_a_second_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pi_sdk_temporal import _client

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(_client, "asyncio", SimpleNamespace(sleep=sleep))  # the reader's clock
    handle = _Handle("r1", [0, 1], [1, 1, 1], 2, DONE)  # open for two polls with nothing new
    events = [event async for event in AgentRun(handle).events()]  # type: ignore[arg-type]
    assert events == [0, 1]
    assert slept == [0.2, 0.2]


async def test_events_follow_a_workflow_across_its_continued_runs() -> None:
    first = _Handle("r1", [0, 1], [2, 2], 0, CONTINUED, next_run="r2")
    second = _Handle("r2", ["r1's", "r1's", 2, 3], [], 0, DONE)  # indices go on from r1's
    run = AgentRun(first, client=_Client(first, second))  # type: ignore[arg-type]
    assert await _read(run) == [0, 1, 2, 3]
    assert second.queries == [2, 4, 4]

    alone = _Handle("r1", [0, 1], [], 0, CONTINUED, next_run="r2")
    assert await _read(AgentRun(alone)) == [0, 1]  # type: ignore[arg-type]  # no client: this run
    lost = _Handle("r1", [0], [], 0, CONTINUED)  # no continued-as-new event found
    assert await _read(AgentRun(lost, client=_Client(lost))) == [0]  # type: ignore[arg-type]


_REPLY_MODEL = pi_sdk.Model(id="m", api="scripted", provider="scripted")


@pytest.mark.parametrize(
    ("stop", "event", "with_call"),
    [
        ("stop", "done", True),  # kept as the worker saw it, not recomputed from the tool call
        ("toolUse", "done", True),
        ("length", "done", False),
        ("error", "error", False),
        ("aborted", "error", False),
    ],
)
async def test_a_replayed_answer_ends_with_the_reason_the_worker_saw(
    stop: str, event: str, with_call: bool
) -> None:
    content: list[Any] = [pi_sdk.TextContent(text="a")]
    if with_call:
        content.append(pi_sdk.ToolCall(id="c1", name="t", arguments={}))
    message = pi_sdk.AssistantMessage(
        content=content,
        api="scripted",
        provider="scripted",
        model="m",
        stop_reason=stop,  # pyright: ignore[reportArgumentType]
        error_message="failed there" if event == "error" else None,
    )
    reply = _workflow._Reply(_REPLY_MODEL, message)  # pyright: ignore[reportPrivateUsage]
    events = [e async for e in reply]
    assert [e.type for e in events] == [event]
    final = events[0].message if event == "done" else events[0].error  # pyright: ignore[reportAttributeAccessIssue]
    assert final.stop_reason == stop
    assert (await reply.result()) is message


async def test_a_replayed_answer_the_loop_cannot_continue_fails_the_activity() -> None:
    for stop in ("pending", "deferred"):
        message = pi_sdk.AssistantMessage(
            content=[],
            api="scripted",
            provider="scripted",
            model="m",
            stop_reason=stop,  # pyright: ignore[reportArgumentType]
        )
        with pytest.raises(_workflow.ActivityFailed, match=repr(stop)):
            _workflow._Reply(_REPLY_MODEL, message)  # pyright: ignore[reportPrivateUsage]
