"""pi-agent-core 1.6's agent-loop tests for the 1.6 hooks, ported to pi-sdk's API (cases, not code).

Source: ``packages/agent/test/agent-loop.test.ts`` of earendil-works/pi. The hook cases
(``finishTurn``, ``prepareRequest``, ``prepareNextTurn``, ``runToolCall``, terminating batches,
``afterToolCall`` usage) come from the copy of that file that carries them in the code index
this project reads (stored text id 70491259929: a later revision than the one it lists for
earendil-works/pi, commit 7cf798c773438b1eabe323eadde7f22b275f680d, which predates them; the
copy marks its own departures "Fork:", and those are not ported). Every expectation was checked
against the 1.6.0 release itself, ``tests/node/node_modules/@earendil-works/pi-agent-core/dist/
agent-loop.js`` (``runLoop``, ``prepareToolCall``, ``finalizeExecutedToolCall``, ``runToolCall``).
Each test names the pi case it ports. Deliberate differences are marked ``DIFFERENCE`` with
the reason; the rest of 1.6's loop behaviour is in ``test_agent_hooks_16.py`` and
``test_tool_failures.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, roles, text_of, user  # noqa: F401

import pi_sdk
from pi_sdk import AfterToolCallResult, AgentContext, AgentToolResult, ToolCall, agent_loop
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk.agent import AgentLoopTurnUpdate, AgentRequestUpdate, run_tool_call
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def call(value: str, id: str = "tool-1", name: str = "echo") -> ToolCall:  # noqa: A002
    return ToolCall(id=id, name=name, arguments={"value": value})


def tool_use(*calls: ToolCall, **options: Any) -> ScriptedReply:
    return ScriptedReply(content=list(calls), **options)


def echo(log: list[Any] | None = None, **result: Any) -> pi_sdk.AgentTool:
    """``echo``: records what it got and answers ``echoed: <value>`` (``result``: more fields)."""

    async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        if log is not None:
            log.append(args["value"])
        answer = AgentToolResult.text(f"echoed: {args['value']}")
        return dataclasses.replace(answer, details={"value": args["value"]}, **result)

    schema = {"type": "object", "properties": {"value": {"type": "string"}}}
    return pi_sdk.AgentTool(name="echo", description="Echo tool", parameters=schema, execute=run)


class Counter:
    """Counts calls of a queue source and answers from a script (then ``[]``)."""

    def __init__(self, *answers: list[Any]) -> None:
        self.calls = 0
        self.answers = list(answers)

    def __call__(self) -> list[Any]:
        self.calls += 1
        return self.answers.pop(0) if self.answers else []


async def run(provider: ScriptedProvider, tools: list[Any], **options: Any) -> list[Any]:
    """One ``agent_loop`` run of ``user("go")``; its events."""
    context = AgentContext(tools=tools)
    stream = agent_loop([user("go")], context, config(provider, **options))
    return await collect(stream)


# --- tool results and tool hooks --------------------------------------------------------------


async def test_should_handle_tool_calls_and_results() -> None:
    """pi: "should handle tool calls and results" (afterToolCall sees and patches ``usage``)."""
    tool_usage = pi_sdk.Usage(input=1, output=2, cache_read=3, cache_write=4, total_tokens=10)
    patched = pi_sdk.Usage(input=5, output=6, cache_read=7, cache_write=8, total_tokens=26)
    observed: list[Any] = []

    def after(ctx: Any, signal: Any) -> AfterToolCallResult:
        observed.append(ctx.result.usage)
        return AfterToolCallResult(usage=patched)

    executed: list[str] = []
    provider = ScriptedProvider([tool_use(call("hello")), "done"])
    events = await run(provider, [echo(executed, usage=tool_usage)], after_tool_call=after)
    assert executed == ["hello"] and observed == [tool_usage]
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error is False  # type: ignore[union-attr]
    (result,) = [m for m in events[-1].messages if m.role == "toolResult"]  # type: ignore[union-attr]
    assert result.usage == patched


async def test_a_whole_tool_call_in_a_length_truncated_reply_runs() -> None:
    """pi: "should not execute tool calls from a length-truncated assistant message".

    DIFFERENCE (deliberate): pi-agent-core 1.6 runs no tool call of a reply that stopped at the
    output limit, since its parser salvages cut argument text into arguments that validate.
    pi-sdk never salvages: a call whose argument text was cut is invalid and never runs
    (``test_invalid_tool_arguments.py``), so a call whose arguments are whole (Gemini sends
    every call whole) is complete and runs.
    """
    executed: list[str] = []
    provider = ScriptedProvider([tool_use(call("hel"), stop_reason="length"), "done"])
    events = await run(provider, [echo(executed)])
    assert executed == ["hel"] and len(provider.calls) == 2
    cut = tool_use(ToolCall(id="t2", name="echo", invalid_arguments='{"value": "he'))
    provider = ScriptedProvider([dataclasses.replace(cut, stop_reason="length"), "done"])
    events = await run(provider, [echo(executed)])
    assert executed == ["hel"]  # the cut one did not run
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error and "cut off" in text_of(end.result)  # type: ignore[union-attr]
    assert len(provider.calls) == 2 and events[-1].messages[-1].role == "assistant"  # type: ignore[union-attr]


async def test_should_execute_mutated_before_tool_call_args_without_revalidation() -> None:
    """pi: "should execute mutated beforeToolCall args without revalidation"."""

    def before(ctx: Any, signal: Any) -> None:
        ctx.args["value"] = 123  # not a string: the schema is not checked again

    executed: list[Any] = []
    provider = ScriptedProvider([tool_use(call("hello")), "done"])
    await run(provider, [echo(executed)], before_tool_call=before)
    assert executed == [123]


async def test_tool_execution_end_comes_in_source_order_like_the_results() -> None:
    """pi: "should emit tool_execution_end in completion order but persist tool results in
    source order".

    DIFFERENCE (deliberate, pi-spec §10.1 #14): pi-sdk finalizes and emits each call's outcome
    in the order of the calls, so ``tool_execution_end`` and the results agree; the tools still
    run in parallel.
    """
    release = asyncio.Event()
    overlap: list[bool] = []

    async def run_tool(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        if args["value"] == "first":
            await release.wait()
        else:
            overlap.append(not release.is_set())
            release.set()
        return AgentToolResult.text(args["value"])

    tool = pi_sdk.AgentTool(name="echo", execute=run_tool)
    provider = ScriptedProvider([tool_use(call("first"), call("second", "tool-2")), "done"])
    events = await run(provider, [tool], tool_execution="parallel")
    assert overlap == [True]  # the second ran while the first waited
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]  # type: ignore[union-attr]
    results = [
        e.message.tool_call_id  # type: ignore[union-attr]
        for e in events
        if e.type == "message_end" and e.message.role == "toolResult"  # type: ignore[union-attr]
    ]
    first_turn = next(e for e in events if e.type == "turn_end")
    turn_results = [r.tool_call_id for r in first_turn.tool_results]  # type: ignore[union-attr]
    assert ends == results == turn_results == ["tool-1", "tool-2"]


# --- finish_turn ------------------------------------------------------------------------------


async def test_runs_finish_turn_after_tool_result_messages_and_before_turn_end() -> None:
    """pi: "runs finishTurn after tool-result messages and before turn_end"."""
    ordering: list[str] = []

    def finish(turn: Any, signal: Any) -> None:
        ordering.append("finish_turn")
        assert len(turn.tool_results) == 1 and turn.context.messages[-1].role == "toolResult"

    async def emit(event: Any) -> None:
        if event.type == "message_end":
            ordering.append(f"message_end:{event.message.role}")
        elif event.type == "turn_end":
            ordering.append("turn_end")

    provider = ScriptedProvider([tool_use(call("hello"))])
    cfg = config(provider, finish_turn=finish)
    await run_agent_loop([user("echo")], AgentContext(tools=[echo(terminate=True)]), cfg, emit)
    assert ordering[-3:] == ["message_end:toolResult", "finish_turn", "turn_end"]


@pytest.mark.parametrize("reason", ["error", "aborted"])
async def test_runs_finish_turn_for_a_failed_reply_without_changing_the_hard_exit(
    reason: str,
) -> None:
    """pi: "runs finishTurn for a %s assistant before turn_end without changing the hard exit"."""
    seen: list[str] = []
    steering, follow_up = Counter(), Counter([user("queued")])

    def finish(turn: Any, signal: Any) -> str:
        seen.append(turn.message.stop_reason)
        return "continue"

    failed = ScriptedReply.failure(reason) if reason == "error" else ScriptedReply.until_aborted()
    provider = ScriptedProvider([failed])
    options: dict[str, Any] = {}
    if reason == "aborted":
        controller = pi_sdk.AbortController()
        options["signal"] = controller.signal
        provider = ScriptedProvider([lambda c: (controller.abort(), failed)[1]])
    events = await run(
        provider,
        [],
        finish_turn=finish,
        get_steering_messages=steering,
        get_follow_up_messages=follow_up,
        **options,
    )
    assert seen == [reason] and len(provider.calls) == 1
    assert steering.calls == 1 and follow_up.calls == 0
    kinds = [e.type for e in events]
    assert kinds[-2:] == ["turn_end", "agent_end"] and kinds.count("turn_end") == 1


async def test_action_end_skips_queue_polling_and_next_turn_preparation() -> None:
    """pi: "action:end skips queue polling and next-turn preparation"."""
    steering, follow_up, prepared = Counter(), Counter([user("queued")]), []
    provider = ScriptedProvider([tool_use(call("x")), "never"])
    await run(
        provider,
        [echo()],
        finish_turn=lambda turn, signal: "end",
        prepare_next_turn=lambda turn: prepared.append(turn),
        get_steering_messages=steering,
        get_follow_up_messages=follow_up,
    )
    assert len(provider.calls) == 1 and prepared == []
    assert steering.calls == 1 and follow_up.calls == 0


async def test_makes_exactly_one_context_only_request_when_no_natural_request_satisfies_it() -> (
    None
):
    """pi: "makes exactly one context-only request when no natural request satisfies
    continuation"."""
    answers = ["continue"]
    provider = ScriptedProvider(["response 1", "response 2", "never"])
    await run(provider, [], finish_turn=lambda turn, signal: answers.pop() if answers else None)
    assert len(provider.calls) == 2 and answers == []


async def test_lets_a_natural_tool_result_request_satisfy_continuation() -> None:
    """pi: "lets a natural tool-result request satisfy continuation"."""
    finishes: list[Any] = []

    def finish(turn: Any, signal: Any) -> str | None:
        finishes.append(turn)
        return "continue" if len(finishes) == 1 else None

    provider = ScriptedProvider([tool_use(call("x")), "done", "never"])
    await run(provider, [echo()], finish_turn=finish)
    assert len(provider.calls) == 2 and len(finishes) == 2


@pytest.mark.parametrize("queue", ["steering", "follow-up"])
async def test_lets_a_natural_queued_request_satisfy_continuation(queue: str) -> None:
    """pi: "lets a natural %s request satisfy continuation"."""
    queued = user(queue)
    finishes: list[Any] = []

    def finish(turn: Any, signal: Any) -> str | None:
        finishes.append(turn)
        return "continue" if len(finishes) == 1 else None

    steering = Counter([], [queued]) if queue == "steering" else Counter()
    follow_up = Counter([queued]) if queue == "follow-up" else Counter()
    provider = ScriptedProvider(["done", "done", "never"])
    await run(
        provider,
        [],
        finish_turn=finish,
        get_steering_messages=steering,
        get_follow_up_messages=follow_up,
    )
    assert len(provider.calls) == 2 and len(finishes) == 2
    second = [text_of(m) for m in provider.calls[1].context.messages if m.role == "user"]
    assert queue in second


async def test_finish_turn_end_receives_the_finalized_turn_and_stops_before_polling() -> None:
    """pi: "action:end receives finalized turn context and stops before queue polling"."""
    seen: dict[str, Any] = {}
    steering, follow_up = Counter(), Counter([user("follow up should stay queued")])

    def finish(turn: Any, signal: Any) -> str:
        seen["results"] = [r.tool_call_id for r in turn.tool_results]
        seen["roles"] = roles(turn.context.messages)
        return "end"

    executed: list[str] = []
    provider = ScriptedProvider([tool_use(call("hello")), "should not run"])
    events = await run(
        provider,
        [echo(executed)],
        finish_turn=finish,
        get_steering_messages=steering,
        get_follow_up_messages=follow_up,
    )
    assert len(provider.calls) == 1 and executed == ["hello"]
    assert steering.calls == 1 and follow_up.calls == 0
    assert seen == {"results": ["tool-1"], "roles": ["user", "assistant", "toolResult"]}
    assert roles(events[-1].messages) == ["user", "assistant", "toolResult"]  # type: ignore[union-attr]
    assert [e.type for e in events if e.type != "message_update"] == [
        "agent_start", "turn_start", "message_start", "message_end", "message_start",
        "message_end", "tool_execution_start", "tool_execution_end", "message_start",
        "message_end", "turn_end", "agent_end",
    ]  # fmt: skip


# --- prepare_request / prepare_next_turn ------------------------------------------------------


async def test_prepares_the_initial_request_after_pending_messages_and_replaces_its_state() -> None:
    """pi: "prepares the initial request after pending messages and can replace request state"."""
    replacement = ScriptedProvider(["done"])
    steering_message, canonical = user("steering"), user("canonical projection")
    completed: list[Any] = []
    prepares: list[Any] = []

    def prepare(request: Any, signal: Any) -> AgentRequestUpdate:
        prepares.append(request)
        assert steering_message in completed and steering_message in request.context.messages
        context = dataclasses.replace(request.context, messages=[canonical])
        return AgentRequestUpdate(context=context, model=replacement.model, thinking_level="high")

    async def emit(event: Any) -> None:
        if event.type == "message_end":
            completed.append(event.message)

    first = ScriptedProvider(["never"])
    cfg = config(first, prepare_request=prepare, get_steering_messages=Counter([steering_message]))
    await run_agent_loop([user("prompt")], AgentContext(), cfg, emit, None, replacement.stream_fn)
    assert len(prepares) == 1 and first.calls == []
    (request,) = replacement.calls
    assert request.model is replacement.model and request.options.reasoning == "high"
    assert [text_of(m) for m in request.context.messages] == ["canonical projection"]


async def test_does_not_poll_steering_after_prepare_request() -> None:
    """pi: "does not poll steering after prepareRequest"."""
    late = user("late steering")
    queued: list[Any] = []
    steering_polls: list[int] = []

    def steering() -> list[Any]:
        steering_polls.append(1)
        taken = list(queued)
        queued.clear()
        return taken

    def prepare(request: Any, signal: Any) -> None:
        if not steering_polls[1:]:  # the first request: steering queued too late for it
            queued.append(late)

    provider = ScriptedProvider(["done", "done", "never"])
    await run(provider, [], get_steering_messages=steering, prepare_request=prepare)
    included = [late in c.context.messages for c in provider.calls]
    assert included == [False, True]
    assert len(steering_polls) == 3  # at the start, after turn 1 (delivers), after turn 2


async def test_should_use_the_prepare_next_turn_snapshot_before_continuing() -> None:
    """pi: "should use prepareNextTurn snapshot before continuing".

    pi 1.6 asks ``prepareNextTurn`` once here (between the two turns); the copy this case comes
    from also asks it after the final stop ("Fork:"), which 1.6's ``runLoop`` does not.
    """
    prepares: list[Any] = []
    guidance = pi_sdk.SystemMessage(content="updated guidance")

    def prepare(turn: Any) -> AgentLoopTurnUpdate:
        prepares.append(turn)
        context = dataclasses.replace(turn.context, system_prompt="second prompt")
        return AgentLoopTurnUpdate(context=context, messages=[guidance])

    provider = ScriptedProvider([tool_use(call("hello")), "done"])
    await run(provider, [echo()], prepare_next_turn=prepare)
    assert len(provider.calls) == 2 and len(prepares) == 1
    second = provider.calls[1]
    assert second.context.system_prompt == "second prompt"
    assert any(m.role == "system" and text_of(m) == "updated guidance" for m in second.messages)


async def test_should_stop_before_provider_call_2_when_prepare_next_turn_aborts() -> None:
    """pi: "should stop before provider call 2 when prepareNextTurn aborts"."""
    controller = pi_sdk.AbortController()
    provider = ScriptedProvider([tool_use(call("hello")), "should not run"])
    events = await run(
        provider,
        [echo()],
        signal=controller.signal,
        prepare_next_turn=lambda turn: controller.abort(),
    )
    assert len(provider.calls) == 1
    assert [e.type for e in events].count("agent_end") == 1
    assert events[-1].messages[-1].stop_reason == "aborted"  # type: ignore[union-attr]


async def test_picks_up_steering_queued_during_prepare_next_turn_before_the_next_request() -> None:
    """pi: "picks up steering queued during prepareNextTurn before the next request"."""
    late = user("late steering")
    queued: list[Any] = []

    def steering() -> list[Any]:
        taken = list(queued)
        queued.clear()
        return taken

    provider = ScriptedProvider([tool_use(call("x")), "done"])
    await run(
        provider,
        [echo()],
        get_steering_messages=steering,
        prepare_next_turn=lambda turn: queued.append(late),
    )
    assert len(provider.calls) == 2 and late in provider.calls[1].context.messages


# --- terminating batches ----------------------------------------------------------------------


async def test_should_stop_after_a_tool_batch_when_every_result_sets_terminate() -> None:
    """pi: "should stop after a tool batch when every tool result sets terminate=true"."""
    prepared: list[Any] = []
    provider = ScriptedProvider([tool_use(call("hello")), "never"])
    events = await run(
        provider, [echo(terminate=True)], prepare_next_turn=lambda t: prepared.append(t)
    )
    assert len(provider.calls) == 1 and prepared == []
    assert roles(events[-1].messages) == ["user", "assistant", "toolResult"]  # type: ignore[union-attr]
    assert [e.type for e in events].count("turn_end") == 1


async def test_should_continue_a_terminating_tool_batch_when_steering_is_queued() -> None:
    """pi: "should continue a terminating tool batch when steering is queued"."""
    queued = user("continue after termination")
    steering = Counter([], [queued])
    tool_turns: list[Any] = []
    provider = ScriptedProvider([tool_use(call("hello")), "done"])
    await run(
        provider,
        [echo(terminate=True)],
        get_steering_messages=steering,
        prepare_next_turn=lambda turn: tool_turns.append(turn) if turn.tool_results else None,
    )
    assert len(provider.calls) == 2 and len(tool_turns) == 1
    assert queued in provider.calls[1].context.messages


async def test_should_stop_after_a_blocked_call_when_before_tool_call_sets_terminate() -> None:
    """pi: "should stop after a blocked tool call when beforeToolCall sets terminate=true"."""
    executed: list[str] = []
    block = pi_sdk.BeforeToolCallResult(block=True, reason="Blocked by policy", terminate=True)
    provider = ScriptedProvider([tool_use(call("hello")), "should not run"])
    events = await run(provider, [echo(executed)], before_tool_call=lambda ctx, signal: block)
    (result,) = [m for m in events[-1].messages if m.role == "toolResult"]  # type: ignore[union-attr]
    assert executed == [] and len(provider.calls) == 1
    assert result.is_error and text_of(result) == "Blocked by policy"


async def test_should_continue_after_a_mixed_batch_with_one_terminating_blocked_call() -> None:
    """pi: "should continue after a mixed batch with one terminating blocked call"."""

    def before(ctx: Any, signal: Any) -> Any:
        if ctx.args["value"] == "first":
            return pi_sdk.BeforeToolCallResult(block=True, reason="Blocked first", terminate=True)
        return None

    executed: list[str] = []
    provider = ScriptedProvider([tool_use(call("first"), call("second", "tool-2")), "done"])
    await run(provider, [echo(executed)], tool_execution="parallel", before_tool_call=before)
    assert executed == ["second"] and len(provider.calls) == 2


async def test_should_allow_after_tool_call_to_mark_a_tool_batch_as_terminating() -> None:
    """pi: "should allow afterToolCall to mark a tool batch as terminating"."""
    provider = ScriptedProvider([tool_use(call("hello")), "never"])
    await run(
        provider,
        [echo()],
        after_tool_call=lambda ctx, signal: AfterToolCallResult(terminate=True),
    )
    assert len(provider.calls) == 1


# --- run_tool_call ----------------------------------------------------------------------------


def _structured_echo() -> pi_sdk.AgentTool:
    async def execute(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        on_update(AgentToolResult.text("partial"))
        answer = AgentToolResult.text(args["value"])
        return dataclasses.replace(answer, details={}, structured_content={"value": args["value"]})

    schema = {"type": "object", "properties": {"value": {"type": "string"}}}
    output = {"type": "object", "properties": {"value": {"type": "string"}}}
    return pi_sdk.AgentTool(name="echo", parameters=schema, execute=execute, output_schema=output)


async def test_run_tool_call_validates_runs_the_hooks_and_reports_failures_as_outcomes() -> None:
    """pi ``runToolCall``: "validates, runs the hooks, and reports failures as error outcomes"."""

    async def bad(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult(
            content=[pi_sdk.TextContent(text="bad")], details={"partial": True}, is_error=True
        )

    failing = pi_sdk.AgentTool(name="failing", execute=bad)
    hook_calls: list[str] = []
    updates: list[Any] = []

    def before(ctx: Any, signal: Any) -> Any:
        hook_calls.append(f"before {ctx.tool_call.id}")
        if ctx.args.get("value") == "blocked":
            return pi_sdk.BeforeToolCallResult(block=True, reason="nope")
        return None

    def after(ctx: Any, signal: Any) -> None:
        hook_calls.append(f"after {ctx.tool_call.id}")

    message = pi_sdk.AssistantMessage(api="x", provider="x", model="x")

    async def one(id: str, name: str, arguments: Any) -> Any:  # noqa: A002
        return await run_tool_call(
            ToolCall(id=id, name=name, arguments=arguments),
            tools=[_structured_echo(), failing],
            assistant_message=message,
            before_tool_call=before,
            after_tool_call=after,
            on_update=updates.append,
        )

    a = await one("a", "echo", {"value": "a"})
    assert not a.is_error and a.result.structured_content == {"value": "a"}
    assert (await one("b", "echo", {"value": {"nested": True}})).is_error  # invalid
    c = await one("c", "echo", {"value": "blocked"})
    assert c.is_error and text_of(c.result) == "nope"
    d = await one("d", "missing", {})
    assert d.is_error and text_of(d.result) == "Tool missing not found"
    e = await one("e", "failing", {})  # an error result keeps its details
    assert e.is_error and e.result.details == {"partial": True}
    assert [text_of(u) for u in updates] == ["partial"]
    # Invalid arguments and unknown tools never reach the hooks; a block skips after_tool_call.
    assert hook_calls == ["before a", "after a", "before c", "before e", "after e"]


@pytest.mark.parametrize(
    ("answer", "structured"),
    [
        ({"content": [pi_sdk.TextContent(text="redacted")]}, None),
        ({"structured_content": {"value": "replaced"}}, {"value": "replaced"}),
        (
            {
                "content": [pi_sdk.TextContent(text="redacted")],
                "structured_content": {"value": "both"},
            },
            {"value": "both"},
        ),
        ({"details": {"note": "kept"}}, {"value": "original"}),
    ],
)
async def test_after_tool_call_replaces_structured_content_or_drops_it_with_the_content(
    answer: dict[str, Any], structured: Any
) -> None:
    """pi ``runToolCall``: "lets afterToolCall replace structured content and drops it when
    only content is replaced"."""
    outcome = await run_tool_call(
        call("original", "x"),
        tools=[_structured_echo()],
        assistant_message=pi_sdk.AssistantMessage(api="x", provider="x", model="x"),
        after_tool_call=lambda ctx, signal: AfterToolCallResult(**answer),
    )
    assert outcome.result.structured_content == structured
