"""pi-agent-core 1.6 agent hooks (issue 28 item 1), ported from pi's ``agent-loop.test.ts`` /
``agent.test.ts`` and its ``agent-loop.js``: ``prepare_request``, ``prepare_next_turn``,
``finish_turn``, ``run_tool_call``, ``peek_queued_messages``, tool results with ``is_error``,
``structured_content``, ``usage``, ``duration_ms``, and ``terminate`` on before-hooks."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, kinds, roles, user  # noqa: F401
from _support.strings import built

import pi_sdk
from pi_sdk import AgentContext, AgentToolResult, ToolCall, agent_loop
from pi_sdk.agent import (
    AgentLoopTurnUpdate,
    AgentRequestUpdate,
    AgentTurnContext,
    PrepareRequestContext,
    run_tool_call,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def echo_tool(log: list[Any] | None = None, **result: Any) -> pi_sdk.AgentTool:
    async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        if log is not None:
            log.append(args["value"])
        on_update(AgentToolResult.text("working"))
        fields = {"content": [pi_sdk.TextContent(text=f"echoed: {args['value']}")]} | result
        if callable(fields.get("terminate")):
            fields["terminate"] = fields["terminate"](args["value"])
        return AgentToolResult(**fields)

    schema = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    return pi_sdk.AgentTool(name="echo", parameters=schema, execute=run)


def call(value: str, id: str = "") -> ToolCall:  # noqa: A002
    return ToolCall(id=id or f"tool-{value}", name="echo", arguments={"value": value})


# --- prepare_next_turn / prepare_request ----------------------------------------------------


async def test_prepare_next_turn_replaces_the_context_and_model_before_the_next_turn() -> None:
    first = ScriptedProvider([ScriptedReply(content=[call("hello")])])
    second = ScriptedProvider(["done"])
    seen: list[AgentTurnContext] = []

    def prepare(turn: AgentTurnContext) -> AgentLoopTurnUpdate | None:
        seen.append(turn)
        context = dataclasses.replace(turn.context, system_prompt="second prompt")
        return AgentLoopTurnUpdate(
            context=context, model=second.model, messages=[user("note from the host")]
        )

    async def stream_fn(model: Any, context: Any, options: Any) -> Any:
        return (first if model is first.model else second).stream_fn(model, context, options)

    context = AgentContext(system_prompt="first prompt", tools=[echo_tool()])
    cfg = config(first, prepare_next_turn=prepare)
    events = await collect(agent_loop([user("echo")], context, cfg, stream_fn=stream_fn))
    assert len(first.calls) == 1 and len(second.calls) == 1
    assert second.calls[0].context.system_prompt == "second prompt"
    assert [m.role for m in second.calls[0].context.messages][-1] == "user"
    assert len(seen) == 1 and [r.tool_call_id for r in seen[0].tool_results] == ["tool-hello"]
    new = events[-1].messages  # type: ignore[union-attr]
    assert roles(new) == ["user", "assistant", "toolResult", "user", "assistant"]
    # the prepared message comes after turn_start, with its own message events
    second_turn = [i for i, e in enumerate(events) if e.type == "turn_start"][1]
    note = next(
        i
        for i, e in enumerate(events)
        if e.type == "message_start" and getattr(e.message, "text", "") == "note from the host"
    )
    assert second_turn < note


async def test_prepare_request_runs_before_every_request_and_switches_model_and_level() -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call("a")]), "done"])
    requests: list[PrepareRequestContext] = []

    def prepare(request: PrepareRequestContext, signal: Any) -> AgentRequestUpdate | None:
        requests.append(dataclasses.replace(request))
        if len(requests) == 1:  # the pending prompt is already in the context
            assert roles(request.context.messages) == ["user"]
            return AgentRequestUpdate(thinking_level="high")
        return AgentRequestUpdate(thinking_level="off")

    cfg = config(provider, prepare_request=prepare)
    context = AgentContext(tools=[echo_tool()])
    await collect(agent_loop([user("go")], context, cfg, stream_fn=provider.stream_fn))
    assert [r.thinking_level for r in requests] == ["off", "high"]
    assert [c.options.reasoning for c in provider.calls] == ["high", None]


async def test_a_prepare_request_that_raises_ends_the_run_with_an_error_message() -> None:
    provider = ScriptedProvider(["never"])

    def broken(request: Any, signal: Any) -> None:
        raise RuntimeError("router down")

    cfg = config(provider, prepare_request=broken)
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    last = events[-1].messages[-1]  # type: ignore[union-attr]
    assert last.stop_reason == "error" and "router down" in last.error_message
    assert provider.calls == []


# --- finish_turn ----------------------------------------------------------------------------


# A hook's answer may be read from a file or a form (equal to the literal, not the same object).
MADE = pytest.mark.parametrize("made", [str, built], ids=["literal", "built"])


@MADE
async def test_finish_turn_end_stops_after_the_turn_without_polling_queues(made: Any) -> None:
    """pi's "should stop after the current turn" test, on finish_turn."""
    executed: list[str] = []
    provider = ScriptedProvider([ScriptedReply(content=[call("hello")]), "should not run"])
    polls = {"steering": 0, "follow_up": 0}

    def steering() -> list[Any]:
        polls["steering"] += 1
        return []

    def follow_up() -> list[Any]:
        polls["follow_up"] += 1
        return [user("follow up should stay queued")]

    turns: list[AgentTurnContext] = []

    def finish(turn: AgentTurnContext, signal: Any) -> str:
        turns.append(turn)
        return made("end")

    cfg = config(
        provider,
        get_steering_messages=steering,
        get_follow_up_messages=follow_up,
        finish_turn=finish,
    )
    context = AgentContext(tools=[echo_tool(executed)])
    events = await collect(agent_loop([user("echo")], context, cfg, stream_fn=provider.stream_fn))
    assert len(provider.calls) == 1 and executed == ["hello"]
    assert polls == {"steering": 1, "follow_up": 0}
    assert [r.tool_call_id for r in turns[0].tool_results] == ["tool-hello"]
    assert roles(turns[0].context.messages) == ["user", "assistant", "toolResult"]
    message = ["message_start", "message_end"]
    tool = ["tool_execution_start", "tool_execution_end"]
    expected = ["agent_start", "turn_start", *message, *message, *tool, *message, "turn_end"]
    assert [k for k in kinds(events) if k != "tool_execution_update"] == [*expected, "agent_end"]


@MADE
async def test_finish_turn_continue_makes_one_more_request_when_the_model_stopped(
    made: Any,
) -> None:
    provider = ScriptedProvider(["first answer", "second answer", "never"])
    answers = iter([made("continue"), None])
    cfg = config(provider, finish_turn=lambda turn, signal: next(answers))
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    assert len(provider.calls) == 2
    assert roles(events[-1].messages) == ["user", "assistant", "assistant"]  # type: ignore[union-attr]


async def test_finish_turn_continue_adds_no_request_when_tool_results_already_need_one() -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call("a")]), "done", "never"])
    cfg = config(
        provider, finish_turn=lambda turn, signal: "continue" if turn.tool_results else None
    )
    context = AgentContext(tools=[echo_tool()])
    await collect(agent_loop([user("x")], context, cfg, stream_fn=provider.stream_fn))
    assert len(provider.calls) == 2


async def test_finish_turn_sees_failed_turns_but_cannot_keep_them_going() -> None:
    provider = ScriptedProvider([ScriptedReply.text("partial", error="boom"), "never"])
    seen: list[str] = []

    def finish(turn: AgentTurnContext, signal: Any) -> str:
        seen.append(turn.message.stop_reason)
        return "continue"

    cfg = config(provider, finish_turn=finish)
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    assert seen == ["error"] and len(provider.calls) == 1
    assert kinds(events)[-2:] == ["turn_end", "agent_end"]


async def test_a_finish_turn_answer_that_is_not_a_decision_ends_the_run_with_an_error() -> None:
    provider = ScriptedProvider(["a", "b"])
    cfg = config(provider, finish_turn=lambda turn, signal: True)
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    last = events[-1].messages[-1]  # type: ignore[union-attr]
    assert last.stop_reason == "error" and "finish_turn must answer" in last.error_message


def test_should_stop_after_turn_is_a_deprecated_alias_on_the_agent() -> None:
    provider = ScriptedProvider(["a"])
    with pytest.warns(DeprecationWarning, match="finish_turn"):
        pi_sdk.Agent(model=provider.model, should_stop_after_turn=lambda turn: True)


# --- tool results -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_a_result_with_is_error_is_an_error_without_raising(mode: str) -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call("a")]), "done"])
    usage = pi_sdk.Usage(input=3, output=4)
    tool = echo_tool(is_error=True, details={"why": "x"}, structured_content={"n": 1}, usage=usage)
    tool.output_schema = {"type": "object"}
    cfg = config(provider, tool_execution=mode)
    events = await collect(
        agent_loop([user("x")], AgentContext(tools=[tool]), cfg, stream_fn=provider.stream_fn)
    )
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error and end.result.details == {"why": "x"}  # type: ignore[union-attr]
    assert end.result.structured_content == {"n": 1}  # type: ignore[union-attr]
    assert isinstance(end.duration_ms, int) and end.duration_ms >= 0  # type: ignore[union-attr]
    result = events[-1].messages[2]  # type: ignore[union-attr]
    assert result.is_error and result.usage == usage and result.duration_ms == end.duration_ms  # type: ignore[union-attr]
    wire = pi_sdk.agent_event_to_dict(end)
    assert wire["durationMs"] == end.duration_ms and wire["result"]["structuredContent"] == {"n": 1}  # type: ignore[union-attr]


async def test_a_tool_that_did_not_run_has_no_duration() -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call("a")]), "done"])
    cfg = config(
        provider, before_tool_call=lambda ctx, signal: pi_sdk.BeforeToolCallResult(block=True)
    )
    events = await collect(
        agent_loop(
            [user("x")], AgentContext(tools=[echo_tool()]), cfg, stream_fn=provider.stream_fn
        )
    )
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.duration_ms is None and "durationMs" not in pi_sdk.agent_event_to_dict(end)  # type: ignore[union-attr]


async def test_after_tool_call_content_without_structured_content_drops_it() -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call("a")]), "done"])
    new = [pi_sdk.TextContent(text="rewritten")]
    cfg = config(
        provider, after_tool_call=lambda ctx, signal: pi_sdk.AfterToolCallResult(content=new)
    )
    tool = echo_tool(structured_content={"n": 1})
    events = await collect(
        agent_loop([user("x")], AgentContext(tools=[tool]), cfg, stream_fn=provider.stream_fn)
    )
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.result.structured_content is None and end.result.content == new  # type: ignore[union-attr]


# --- terminate ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "calls", "expected_requests"),
    [
        ({"tool": {"terminate": True}}, ["a"], 1),
        ({"tool": {"terminate": lambda v: v == "first"}}, ["first", "second"], 2),
        ({"after": True}, ["a"], 1),
        ({"block": True}, ["a", "b"], 1),
        ({"block": False}, ["a"], 2),
    ],
    ids=["all-terminate", "not-all", "after-hook", "blocked-terminate", "blocked-no-terminate"],
)
async def test_a_batch_ends_the_run_only_when_every_result_terminates(
    options: dict[str, Any], calls: list[str], expected_requests: int
) -> None:
    provider = ScriptedProvider([ScriptedReply(content=[call(v) for v in calls]), "done"])
    hooks: dict[str, Any] = {}
    if options.get("after"):
        hooks["after_tool_call"] = lambda ctx, s: pi_sdk.AfterToolCallResult(terminate=True)
    if "block" in options:
        terminate = options["block"]
        hooks["before_tool_call"] = lambda ctx, s: pi_sdk.BeforeToolCallResult(
            block=True, reason="no", terminate=terminate
        )
    tool = echo_tool(**options.get("tool", {}))
    cfg = config(provider, **hooks)
    events = await collect(
        agent_loop([user("x")], AgentContext(tools=[tool]), cfg, stream_fn=provider.stream_fn)
    )
    assert len(provider.calls) == expected_requests
    assert len([e for e in events if e.type == "turn_end"]) == expected_requests


# --- run_tool_call ----------------------------------------------------------------------------


def _message() -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(api="openai-responses", provider="openai", model="test")


async def test_run_tool_call_validates_and_blocks_nested_calls_through_the_same_hooks() -> None:
    executed: list[str] = []
    tools = [echo_tool(executed)]
    invalid = await run_tool_call(
        ToolCall(id="bad", name="echo", arguments={}), tools=tools, assistant_message=_message()
    )
    assert invalid.is_error and executed == []
    blocked = await run_tool_call(
        call("x"),
        tools=tools,
        assistant_message=_message(),
        before_tool_call=lambda ctx, s: pi_sdk.BeforeToolCallResult(block=True, reason="nested"),
    )
    assert blocked.is_error and blocked.result.content[0].text == "nested" and executed == []  # type: ignore[union-attr]
    unknown = await run_tool_call(
        ToolCall(id="u", name="nope", arguments={}), tools=tools, assistant_message=_message()
    )
    assert unknown.is_error and unknown.duration_ms is None


async def test_run_tool_call_keeps_structured_content_and_applies_after_hooks() -> None:
    updates: list[AgentToolResult] = []
    outcome = await run_tool_call(
        call("x"),
        tools=[echo_tool(structured_content={"value": 1})],
        assistant_message=_message(),
        after_tool_call=lambda ctx, s: pi_sdk.AfterToolCallResult(
            structured_content={"value": 2}, is_error=True
        ),
        on_update=updates.append,
    )
    assert outcome.result.structured_content == {"value": 2} and outcome.is_error
    assert outcome.duration_ms is not None and [u.content[0].text for u in updates] == ["working"]  # type: ignore[union-attr]


async def test_run_tool_call_never_raises_and_checks_the_abort_before_any_hook() -> None:
    asked: list[str] = []

    def before(ctx: Any, signal: Any) -> None:
        asked.append("before")

    def after(ctx: Any, signal: Any) -> None:
        raise RuntimeError("after hook broke")

    broke = await run_tool_call(
        call("x"),
        tools=[echo_tool()],
        assistant_message=_message(),
        before_tool_call=before,
        after_tool_call=after,
    )
    assert broke.is_error and "after hook broke" in broke.result.content[0].text  # type: ignore[union-attr]
    controller = pi_sdk.AbortController()
    controller.abort()
    aborted = await run_tool_call(
        call("y"),
        tools=[echo_tool()],
        assistant_message=_message(),
        before_tool_call=before,
        signal=controller.signal,
    )
    assert aborted.is_error and asked == ["before"]


# --- the Agent --------------------------------------------------------------------------------


def test_peek_queued_messages_previews_the_next_poll_without_consuming() -> None:
    agent = pi_sdk.Agent(steering_mode="one-at-a-time", follow_up_mode=built("all"))
    assert agent.peek_queued_messages() == []
    agent.follow_up("f1")
    agent.follow_up("f2")
    assert [m.text for m in agent.peek_queued_messages()] == ["f1", "f2"]  # type: ignore[union-attr]
    agent.steer("s1")
    agent.steer("s2")
    assert [m.text for m in agent.peek_queued_messages()] == ["s1"]  # type: ignore[union-attr]
    assert agent.peek_queued_messages() == agent.peek_queued_messages()
    assert agent.has_queued_messages()


async def test_the_agent_passes_its_hooks_to_the_loop() -> None:
    provider = ScriptedProvider(["one", "two", "three"])
    finished: list[str] = []

    def finish(turn: AgentTurnContext, signal: Any) -> str | None:
        finished.append(turn.message.text)
        return "continue" if len(finished) < 2 else None

    requests: list[str] = []
    agent = pi_sdk.Agent(
        model=provider.model,
        finish_turn=finish,
        prepare_request=lambda request, signal: requests.append(request.model.id),
    )
    await agent.prompt("hi")
    assert finished == ["one", "two"] and requests == [provider.model.id] * 2


# --- plugins ----------------------------------------------------------------------------------


async def test_prepare_request_and_finish_turn_plugins(isolated_plugins: Any) -> None:  # noqa: F811
    big = ScriptedProvider(["from the big model", "never"])
    small = ScriptedProvider(["never"])

    class Router:
        @pi_sdk.hookimpl
        def prepare_request(self, request: PrepareRequestContext) -> AgentRequestUpdate:
            return AgentRequestUpdate(model=big.model)

        @pi_sdk.hookimpl
        async def finish_turn(self, turn: AgentTurnContext) -> str:
            return "end"

    isolated_plugins.register(Router())

    async def stream_fn(model: Any, context: Any, options: Any) -> Any:
        return (big if model is big.model else small).stream_fn(model, context, options)

    cfg = config(small, finish_turn=lambda turn, signal: "continue")
    events = await collect(agent_loop([user("x")], AgentContext(), cfg, stream_fn=stream_fn))
    assert len(big.calls) == 1 and small.calls == []  # the plugin's "end" beat "continue"
    assert events[-1].messages[-1].text == "from the big model"  # type: ignore[union-attr]


# --- apply_update: an update laid on the run's config and context ----------------------------


def _base() -> tuple[Any, AgentContext]:
    provider = ScriptedProvider([])
    return config(provider, reasoning="low"), AgentContext(system_prompt="base")


@pytest.mark.parametrize("kind", ["request", "turn"])
def test_an_update_changes_only_the_fields_it_sets(kind: str) -> None:
    from pi_sdk._agent.turn_hooks import apply_update
    from pi_sdk.agent import AgentLoopTurnUpdate, AgentRequestUpdate

    update_type = AgentRequestUpdate if kind == "request" else AgentLoopTurnUpdate
    cfg, context = _base()
    other = pi_sdk.Model(id="other", api="x", provider="p")
    new_context = AgentContext(system_prompt="new")

    same_cfg, same_context = apply_update(cfg, context, update_type())
    assert same_cfg is cfg and same_context is context  # nothing set: nothing changes

    changed, kept = apply_update(cfg, context, update_type(model=other))
    assert (changed.model, changed.reasoning, kept) == (other, "low", context)
    assert cfg.model is not other  # the old config is not changed

    off, _ = apply_update(cfg, context, update_type(thinking_level="off"))
    assert (off.reasoning, off.model) == (None, cfg.model)
    high, _ = apply_update(cfg, context, update_type(thinking_level="high"))
    assert high.reasoning == "high"

    unchanged, replaced = apply_update(cfg, context, update_type(context=new_context))
    assert unchanged is cfg and replaced is new_context


@pytest.mark.parametrize("update", [{"model": None}, "end", 3])
def test_an_update_of_another_type_is_a_type_error(update: object) -> None:
    from pi_sdk._agent.turn_hooks import apply_update

    cfg, context = _base()
    with pytest.raises(TypeError) as caught:
        apply_update(cfg, context, update)
    assert str(caught.value) == (
        f"expected AgentRequestUpdate, AgentLoopTurnUpdate or None; got {type(update).__name__}"
    )


async def test_run_tool_call_resolves_against_its_tools_in_a_copy_of_the_given_context() -> None:
    executed: list[str] = []
    tools = [echo_tool(executed)]
    other = pi_sdk.AgentTool(name="other", execute=lambda *a: AgentToolResult.text("no"))
    given = AgentContext(system_prompt="Outer.", tools=[other], messages=[user("q")])
    seen: list[tuple[str, list[str], int]] = []

    def before(ctx: Any, signal: Any) -> None:
        context = ctx.context
        seen.append((context.system_prompt, [t.name for t in context.tools], len(context.messages)))

    outcome = await run_tool_call(
        call("x"), tools=tools, assistant_message=_message(), context=given, before_tool_call=before
    )
    assert not outcome.is_error and executed == ["x"]
    assert seen == [("Outer.", ["echo"], 1)]  # the prompt and transcript kept, the tools given
    assert [t.name for t in given.tools] == ["other"]  # the caller's context is not changed
    same = AgentContext(tools=tools)
    await run_tool_call(call("y"), tools=tools, assistant_message=_message(), context=same)
    assert executed == ["x", "y"] and same.tools is tools


def test_run_tool_call_gives_a_tool_the_agents_grace_after_an_abort_by_default() -> None:
    import inspect

    grace = inspect.signature(run_tool_call).parameters["tool_abort_grace_ms"].default
    assert grace == pi_sdk.Agent().tool_abort_grace_ms == 2000


def _finishing_plugin(name: str, answer: str | None, asked: list[str]) -> object:
    class Finisher:
        @pi_sdk.hookimpl
        def finish_turn(self, turn: AgentTurnContext) -> str | None:
            asked.append(name)
            return answer

    return Finisher()


@pytest.mark.parametrize(
    ("callable_answer", "plugin_answers", "stop", "failed", "decision", "asked"),
    [
        (None, [], None, False, None, []),
        ("continue", [], None, False, "continue", []),
        ("end", ["continue"], None, False, "end", []),  # an "end" asks no plugin
        ("continue", [None], None, False, "continue", ["p0"]),  # None keeps the answer so far
        (None, ["continue", "end", "continue"], None, False, "end", ["p0", "p1"]),
        (None, ["end", "continue"], None, False, "end", ["p0"]),  # the first "end" wins
        ("end", [], True, False, "end", []),
        (None, [], True, False, "end", ["stop?"]),  # the deprecated alias: true is "end"
        (None, [], False, False, None, ["stop?"]),
        ("continue", [], True, False, "continue", []),  # asked only when nobody answered
        (None, [], True, True, None, []),  # a failed turn: never asked (the run ends anyway)
        (None, ["continue"], True, True, "continue", ["p0"]),  # finish_turn sees it, in vain
    ],
)
@MADE
async def test_the_turn_decision_combines_the_callable_the_plugins_and_the_alias(
    isolated_plugins: Any,  # noqa: F811
    made: Any,
    callable_answer: str | None,
    plugin_answers: list[str | None],
    stop: bool | None,
    failed: bool,
    decision: str | None,
    asked: list[str],
) -> None:
    from pi_sdk._agent.turn_hooks import ask_finish_turn

    seen: list[str] = []
    for index, answer in reversed(list(enumerate(plugin_answers))):  # pluggy asks the last first
        answer = None if answer is None else made(answer)
        isolated_plugins.register(_finishing_plugin(f"p{index}", answer, seen), name=f"p{index}")

    def should_stop(turn: AgentTurnContext) -> bool:
        seen.append("stop?")
        return bool(stop)

    options: dict[str, Any] = {}
    if callable_answer is not None:
        given = made(callable_answer)
        options["finish_turn"] = lambda turn, signal: given
    if stop is not None:
        options["should_stop_after_turn"] = should_stop
    cfg = config(ScriptedProvider([]), **options)
    message = pi_sdk.AssistantMessage(api="a", provider="p", model="m")
    message.stop_reason = "error" if failed else "stop"
    turn = AgentTurnContext(
        message=message, tool_results=[], context=AgentContext(), new_messages=[]
    )
    assert await ask_finish_turn(cfg, turn, pi_sdk.AbortController().signal) == decision
    assert seen == asked


async def test_each_prepare_request_hook_sees_what_the_one_before_it_changed(
    isolated_plugins: Any,  # noqa: F811
) -> None:
    from pi_sdk._agent.turn_hooks import ask_prepare_request

    other = pi_sdk.Model(id="other", api="x", provider="p")
    seen: list[tuple[str, str, str | None]] = []

    def first(request: PrepareRequestContext, signal: Any) -> AgentRequestUpdate:
        seen.append(("callable", request.model.id, request.thinking_level))
        return AgentRequestUpdate(model=other)

    class Second:
        @pi_sdk.hookimpl
        def prepare_request(self, request: PrepareRequestContext) -> AgentRequestUpdate:
            seen.append(("plugin a", request.model.id, request.thinking_level))
            return AgentRequestUpdate(thinking_level="high")

    class Third:
        @pi_sdk.hookimpl
        def prepare_request(self, request: PrepareRequestContext) -> None:
            seen.append(("plugin b", request.model.id, request.thinking_level))

    isolated_plugins.register(Third(), name="b")
    isolated_plugins.register(Second(), name="a")  # pluggy asks the last registered first
    provider = ScriptedProvider([])
    cfg = config(provider, reasoning="low", prepare_request=first)
    context = AgentContext(system_prompt="kept")
    new_cfg, new_context = await ask_prepare_request(cfg, context, pi_sdk.AbortController().signal)
    assert seen == [
        ("callable", provider.model.id, "low"),
        ("plugin a", "other", "low"),
        ("plugin b", "other", "high"),
    ]
    assert (new_cfg.model, new_cfg.reasoning, new_context) == (other, "high", context)
    assert (cfg.model, cfg.reasoning) == (provider.model, "low")  # the run's old config stays


async def test_an_on_agent_event_plugin_sees_every_event_of_each_run_with_its_id(
    isolated_plugins: Any,  # noqa: F811
) -> None:
    seen: list[tuple[str, str, str]] = []

    class Observer:
        @pi_sdk.hookimpl
        async def on_agent_event(self, event: Any, run_id: str, model: Any) -> None:
            seen.append((event.type, run_id, model.id))

    isolated_plugins.register(Observer())
    provider = ScriptedProvider(["one", "two"])
    cfg = config(provider)
    first = await collect(agent_loop([user("a")], AgentContext(), cfg))
    count = len(seen)
    second = await collect(agent_loop([user("b")], AgentContext(), cfg))
    assert [t for t, _, _ in seen] == [e.type for e in first] + [e.type for e in second]
    runs = [{r for _, r, _ in seen[:count]}, {r for _, r, _ in seen[count:]}]
    assert all(len(ids) == 1 for ids in runs) and runs[0] != runs[1]  # one id per run
    assert all(len(r) == 32 for ids in runs for r in ids)
    assert {m for _, _, m in seen} == {provider.model.id}
