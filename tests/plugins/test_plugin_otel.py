"""pi-sdk-otel: the GenAI spans of agent runs and model calls, on the SDK's in-memory exporter."""

import json

import pi_sdk_otel
import pytest
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from pi_sdk_otel import CAPTURE_CONTENT_ENV, Tracing

import pi_sdk
from pi_sdk import Agent, UserMessage, tool
from pi_sdk.testing import ScriptedProvider, ScriptedReply
from pi_sdk.types import Usage


@pytest.fixture
def exporter():
    return InMemorySpanExporter()


@pytest.fixture
def otel(plugin_manager, exporter, monkeypatch):
    """The plugin registered and writing to an in-memory exporter; returns a configure helper."""
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    plugin_manager.register(pi_sdk_otel, name="otel")

    def use(**options):
        pi_sdk_otel.configure(Tracing(provider, **options))

    use()
    yield use
    pi_sdk_otel.reset()
    provider.shutdown()


@tool
async def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@tool
async def get_time(city: str) -> str:
    """Local time of a city.

    Args:
        city: The city.
    """
    if city == "Atlantis":
        raise ValueError("no such city")
    return f"noon in {city}"


def two_tool_calls(time_city="Paris"):
    usage = Usage(input=100, output=20, cache_read=30)
    return ScriptedProvider(
        [
            ScriptedReply(
                content=[
                    pi_sdk.ToolCall(id="call_w", name="get_weather", arguments={"city": "Paris"}),
                    pi_sdk.ToolCall(id="call_t", name="get_time", arguments={"city": time_city}),
                ],
                usage=usage,
            ),
            ScriptedReply.text("Sunny at noon.", usage=Usage(input=150, output=5)),
        ]
    )


def by_name(spans):
    found = {}
    for span in spans:
        found.setdefault(span.name, []).append(span)
    return found


async def run_agent(provider, **options):
    agent = Agent(
        model=provider.model,
        tools=[get_weather, get_time],
        system_prompt="You answer weather questions.",
        **options,
    )
    await agent.prompt("Weather and time in Paris?")
    return agent


async def test_one_run_with_two_tool_calls_gives_the_genai_spans_and_their_tree(otel, exporter):
    provider = two_tool_calls()
    await run_agent(provider)
    spans = exporter.get_finished_spans()
    named = by_name(spans)
    model_id = provider.model.id
    assert sorted(named) == sorted(
        [
            "invoke_agent",
            "turn",
            f"chat {model_id}",
            "execute_tool get_weather",
            "execute_tool get_time",
        ]
    )
    (run,) = named["invoke_agent"]
    turns = sorted(named["turn"], key=lambda s: s.attributes["pi_sdk.turn.index"])
    chats = sorted(named[f"chat {model_id}"], key=lambda s: s.start_time)
    (weather,) = named["execute_tool get_weather"]
    (time,) = named["execute_tool get_time"]
    assert len(turns) == 2 and len(chats) == 2

    # parentage: run > turn > chat / execute_tool, one trace
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}
    assert run.parent is None
    assert all(t.parent.span_id == run.context.span_id for t in turns)
    assert chats[0].parent.span_id == turns[0].context.span_id
    assert chats[1].parent.span_id == turns[1].context.span_id
    assert weather.parent.span_id == turns[0].context.span_id
    assert time.parent.span_id == turns[0].context.span_id

    # GenAI attribute names and values
    assert run.kind == SpanKind.INTERNAL
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.request.model"] == model_id
    assert run.attributes["gen_ai.provider.name"] == provider.model.provider
    assert run.attributes["gen_ai.usage.input_tokens"] == 100 + 30 + 150
    assert run.attributes["gen_ai.usage.output_tokens"] == 25
    assert run.attributes["gen_ai.response.finish_reasons"] == ("stop",)

    first = chats[0]
    assert first.kind == SpanKind.CLIENT
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.request.model"] == model_id
    assert first.attributes["gen_ai.response.model"] == model_id
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_call",)
    assert first.attributes["pi_sdk.stop_reason"] == "toolUse"
    assert first.attributes["gen_ai.usage.input_tokens"] == 130
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 30
    assert first.attributes["gen_ai.usage.output_tokens"] == 20
    assert chats[1].attributes["gen_ai.response.finish_reasons"] == ("stop",)

    for span, name, call_id in ((weather, "get_weather", "call_w"), (time, "get_time", "call_t")):
        assert span.kind == SpanKind.INTERNAL
        assert span.attributes["gen_ai.operation.name"] == "execute_tool"
        assert span.attributes["gen_ai.tool.name"] == name
        assert span.attributes["gen_ai.tool.call.id"] == call_id
        assert span.status.status_code == StatusCode.UNSET

    # content is off by default: no prompt, completion, argument or result anywhere
    content_keys = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    assert not any(content_keys & set(s.attributes) for s in spans)
    assert not any("Paris" in str(v) for s in spans for v in s.attributes.values())


async def test_content_is_recorded_when_opted_in_by_the_constructor(otel, exporter):
    otel(capture_content=True)
    provider = two_tool_calls()
    await run_agent(provider)
    named = by_name(exporter.get_finished_spans())
    chats = sorted(named[f"chat {provider.model.id}"], key=lambda s: s.start_time)
    inputs = json.loads(chats[1].attributes["gen_ai.input.messages"])
    assert inputs[0] == {
        "role": "user",
        "parts": [{"type": "text", "content": "Weather and time in Paris?"}],
    }
    assert inputs[1]["role"] == "assistant"
    assert inputs[1]["parts"][0] == {
        "type": "tool_call",
        "id": "call_w",
        "name": "get_weather",
        "arguments": {"city": "Paris"},
    }
    responses = [m for m in inputs if m["role"] == "tool"]
    assert {"type": "tool_call_response", "id": "call_w", "response": "sunny in Paris"} in [
        m["parts"][0] for m in responses
    ]
    outputs = json.loads(chats[1].attributes["gen_ai.output.messages"])
    assert outputs == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "Sunny at noon."}],
            "finish_reason": "stop",
        }
    ]
    assert json.loads(chats[0].attributes["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "You answer weather questions."}
    ]
    tools = json.loads(chats[0].attributes["gen_ai.tool.definitions"])
    assert [t["name"] for t in tools] == ["get_weather", "get_time"]
    (weather,) = named["execute_tool get_weather"]
    assert json.loads(weather.attributes["gen_ai.tool.call.arguments"]) == {"city": "Paris"}
    result = json.loads(weather.attributes["gen_ai.tool.call.result"])
    assert result["content"] == [{"type": "text", "text": "sunny in Paris"}]


@pytest.mark.parametrize(
    ("value", "captured"),
    [("1", True), ("true", True), ("YES", True), (" On\n", True), ("no", False), ("", False)],
)
async def test_the_env_var_turns_content_capture_on(
    plugin_manager, exporter, monkeypatch, value, captured
):
    provider_otel = TracerProvider()
    provider_otel.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(otel_trace, "get_tracer_provider", lambda: provider_otel)
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, value)
    plugin_manager.register(pi_sdk_otel, name="otel")
    pi_sdk_otel.reset()  # the default Tracing, on the global provider, reading the env var
    try:
        provider = ScriptedProvider(["hello"])
        await pi_sdk.complete(provider.model, pi_sdk.Context(messages=[UserMessage(content="hi")]))
    finally:
        pi_sdk_otel.reset()
    (chat,) = exporter.get_finished_spans()
    assert chat.parent is None  # no agent run: a root chat span
    if captured:
        messages = json.loads(chat.attributes["gen_ai.input.messages"])
        assert messages[0]["parts"][0]["content"] == "hi"
    else:
        assert "gen_ai.input.messages" not in chat.attributes


async def test_a_failing_tool_is_an_error_span(otel, exporter):
    await run_agent(two_tool_calls(time_city="Atlantis"))
    named = by_name(exporter.get_finished_spans())
    (time,) = named["execute_tool get_time"]
    assert time.status.status_code == StatusCode.ERROR
    assert time.attributes["error.type"] == "tool_error"
    assert "no such city" in time.status.description
    (weather,) = named["execute_tool get_weather"]
    assert weather.status.status_code == StatusCode.UNSET
    (run,) = named["invoke_agent"]
    assert run.status.status_code == StatusCode.UNSET  # the model answered in the end


async def test_a_vendor_error_is_error_status_with_the_error_type(otel, exporter):
    provider = ScriptedProvider([ScriptedReply.failure("429 Too Many Requests: slow down")])
    await run_agent(provider)
    named = by_name(exporter.get_finished_spans())
    (chat,) = named[f"chat {provider.model.id}"]
    for span in (chat, named["turn"][0], named["invoke_agent"][0]):
        assert span.status.status_code == StatusCode.ERROR
        assert "429 Too Many Requests" in span.status.description
    assert chat.attributes["error.type"] == "429"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("error",)


async def test_an_abort_is_error_status_that_says_aborted(otel, exporter):
    provider = ScriptedProvider([ScriptedReply.until_aborted([pi_sdk.TextContent(text="Thin")])])
    agent = Agent(model=provider.model)
    agent.subscribe(lambda event: agent.abort() if event.type == "message_update" else None)
    await agent.prompt("Think long")
    named = by_name(exporter.get_finished_spans())
    (chat,) = named[f"chat {provider.model.id}"]
    (run,) = named["invoke_agent"]
    for span in (chat, run):
        assert span.status.status_code == StatusCode.ERROR
        assert span.status.description.startswith("aborted")
        assert span.attributes["error.type"] == "aborted"
        assert span.attributes["pi_sdk.stop_reason"] == "aborted"


async def test_configure_none_records_nothing_and_a_broken_observer_never_breaks_a_run(
    otel, exporter, plugin_manager, caplog
):
    pi_sdk_otel.configure(None)
    provider = two_tool_calls()
    agent = await run_agent(provider)
    assert exporter.get_finished_spans() == ()

    class Broken:
        @pi_sdk.hookimpl
        def on_agent_event(self, event):
            raise RuntimeError("observer bug")

        @pi_sdk.hookimpl
        def on_model_call(self, model):
            raise RuntimeError("observer bug")

    plugin_manager.register(Broken(), name="broken")
    otel()
    provider = two_tool_calls()
    agent = await run_agent(provider)
    assert agent.state.messages[-1].stop_reason == "stop"
    assert {"invoke_agent", "turn"} <= set(by_name(exporter.get_finished_spans()))
    assert "observer hook 'on_agent_event' of plugin 'broken' failed" in caplog.text
    assert "observer hook 'on_model_call' of plugin 'broken' failed" in caplog.text


async def test_parallel_runs_keep_their_own_trees(otel, exporter):
    import asyncio

    providers = [two_tool_calls(), two_tool_calls()]
    await asyncio.gather(*(run_agent(p) for p in providers))
    spans = exporter.get_finished_spans()
    runs = [s for s in spans if s.name == "invoke_agent"]
    assert len(runs) == 2
    for run in runs:
        tree = [s for s in spans if s.context.trace_id == run.context.trace_id]
        assert sorted(s.name for s in tree if s.name.startswith("execute_tool")) == [
            "execute_tool get_time",
            "execute_tool get_weather",
        ]
        assert len([s for s in tree if s.name.startswith("chat ")]) == 2


# --- the observer hooks themselves ------------------------------------------------------------


class Recorder:
    """Records what the observer hooks are told."""

    def __init__(self):
        self.events = []
        self.calls = []

    @pi_sdk.hookimpl
    async def on_agent_event(self, event, run_id):
        self.events.append((event.type, run_id))

    @pi_sdk.hookimpl
    def on_model_call(self, model, run_id):
        call = {"model": model.id, "run_id": run_id, "finished": []}
        self.calls.append(call)
        return call["finished"].append


async def test_observers_see_every_run_event_and_each_model_call_once_with_its_run_id(
    plugin_manager,
):
    recorder = Recorder()
    plugin_manager.register(recorder, name="recorder")
    provider = two_tool_calls()
    await run_agent(provider)
    run_ids = {run_id for _, run_id in recorder.events}
    assert len(run_ids) == 1 and len(next(iter(run_ids))) == 32
    types = [t for t, _ in recorder.events]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    assert types.count("tool_execution_end") == 2
    assert [c["run_id"] for c in recorder.calls] == [*run_ids] * 2
    stops = [[m.stop_reason for m in c["finished"]] for c in recorder.calls]
    assert stops == [["toolUse"], ["stop"]]

    # outside a run: no run id; a stream left early still finishes its observer, aborted
    recorder.calls.clear()
    provider = ScriptedProvider(["a long answer " * 20])
    context = pi_sdk.Context(messages=[UserMessage(content="hi")])
    async with pi_sdk.stream(provider.model, context) as events:
        async for _ in events:
            break
    (call,) = recorder.calls
    assert call["run_id"] is None
    assert [m.stop_reason for m in call["finished"]] == ["aborted"]


def test_registration_rejects_an_async_on_model_call_and_observer_wrappers(plugin_manager):
    import pluggy

    class AsyncCall:
        @pi_sdk.hookimpl
        async def on_model_call(self, model):
            return None

    class Wrapper:
        @pi_sdk.hookimpl(wrapper=True)
        def on_agent_event(self, event):
            return (yield)

    with pytest.raises(pluggy.PluginValidationError, match="must be a plain def"):
        plugin_manager.register(AsyncCall(), name="async-call")
    with pytest.raises(pluggy.PluginValidationError, match="does not support wrappers"):
        plugin_manager.register(Wrapper(), name="wrapper")


def test_runs_that_never_end_are_dropped_past_the_cap(exporter, monkeypatch):
    from pi_sdk.agent import AgentStartEvent

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(pi_sdk_otel.tracing, "MAX_OPEN_RUNS", 2)
    tracing = Tracing(provider)
    model = ScriptedProvider(["x"]).model
    for run_id in ("r1", "r2", "r3"):
        run_model = model.model_copy(update={"id": f"model-of-{run_id}"})
        tracing.on_agent_event(AgentStartEvent(), run_id, run_model)
    (dropped,) = exporter.get_finished_spans()  # r1: the oldest, ended; r2 and r3 stay open
    assert dropped.name == "invoke_agent"
    assert dropped.attributes["gen_ai.request.model"] == "model-of-r1"
    assert dropped.status.status_code == StatusCode.ERROR
    assert dropped.status.description.startswith("abandoned")


@pytest.mark.parametrize(("open_runs", "dropped"), [(10_000, []), (10_001, ["model-of-r0"])])
def test_10_000_runs_stay_open_and_the_next_one_drops_the_oldest(exporter, open_runs, dropped):
    from pi_sdk.agent import AgentStartEvent

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing = Tracing(provider)
    model = ScriptedProvider(["x"]).model
    tracing.on_agent_event(AgentStartEvent(), "r0", model.model_copy(update={"id": "model-of-r0"}))
    oldest = tracing._runs["r0"]  # pyright: ignore[reportPrivateUsage]
    # The runs between are open runs too (no span of theirs is ended either way).
    tracing._runs.update((f"r{n}", oldest) for n in range(1, open_runs - 1))  # pyright: ignore[reportPrivateUsage]
    tracing.on_agent_event(AgentStartEvent(), "last", model)
    assert [s.attributes["gen_ai.request.model"] for s in exporter.get_finished_spans()] == dropped
    assert len(tracing._runs) == 10_000  # pyright: ignore[reportPrivateUsage]


async def test_recorded_content_names_an_image_but_never_holds_its_bytes(otel, exporter):
    otel(capture_content=True)
    provider = ScriptedProvider(["a cat"])
    data = "iVBORw0KGgo" + "A" * 64
    image = pi_sdk.ImageContent(data=data, mime_type="image/png")
    message = UserMessage(content=[pi_sdk.TextContent(text="what is it?"), image])
    await pi_sdk.complete(provider.model, pi_sdk.Context(messages=[message]))
    (chat,) = exporter.get_finished_spans()
    parts = json.loads(chat.attributes["gen_ai.input.messages"])[0]["parts"]
    assert parts[1] == {"type": "image", "modality": "image", "mime_type": "image/png"}
    assert data not in chat.attributes["gen_ai.input.messages"]


def test_content_reads_the_prompt_and_tools_a_transcript_declares():
    # pi-ai 1.6 transcript form: the leading system message is the instructions, a later one
    # an input message with its update; the tools are the current ones.
    from pi_sdk_otel import attributes as attr

    from pi_sdk import Context, SystemMessage, Tool

    context = Context(
        messages=[
            SystemMessage(content="Base.", tools_added=[Tool(name="a"), Tool(name="b")]),
            UserMessage(content="hi"),
            SystemMessage(content="More.", tools_removed=[{"name": "a"}]),  # type: ignore[list-item]
        ]
    )
    assert pi_sdk.current_system_prompt(context) == "Base.\n\nMore."
    sent = json.loads(attr.input_messages(context))
    assert [m["role"] for m in sent] == ["user", "system"]
    assert sent[1]["parts"] == [{"type": "text", "content": "More."}]
    assert [t["name"] for t in json.loads(attr.tool_definitions(context))] == ["b"]
    shorthand = Context(system_prompt="p", tools=[Tool(name="x")], messages=[])
    assert json.loads(attr.input_messages(shorthand)) == []
    assert [t["name"] for t in json.loads(attr.tool_definitions(shorthand))] == ["x"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, {}),
        ({"temperature": 0.25, "max_tokens": 64, "session_id": "conv-7"},
         {"gen_ai.request.temperature": 0.25, "gen_ai.request.max_tokens": 64,
          "gen_ai.conversation.id": "conv-7"}),
        ({"temperature": 0.0, "session_id": ""}, {"gen_ai.request.temperature": 0.0}),
    ],
    ids=["none", "all", "zero-and-empty"],
)  # fmt: skip
async def test_a_chat_span_carries_the_request_options_that_were_given(
    otel, exporter, options, expected
):
    from pi_sdk import StreamOptions, UserMessage, complete
    from pi_sdk.testing import ScriptedProvider

    provider = ScriptedProvider(["hi"])
    await complete(provider.model, pi_sdk.Context(messages=[UserMessage(content="q")]),
                   StreamOptions(**options))  # fmt: skip
    [span] = [s for s in exporter.get_finished_spans() if s.name.startswith("chat ")]
    keys = ("gen_ai.request.temperature", "gen_ai.request.max_tokens", "gen_ai.conversation.id")
    assert {k: span.attributes[k] for k in keys if k in span.attributes} == expected


def test_the_tracing_repr_says_whether_content_is_captured(monkeypatch):
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    assert repr(Tracing(TracerProvider(), capture_content=True)) == "Tracing(capture_content=True)"
    assert repr(Tracing(TracerProvider())) == "Tracing(capture_content=False)"


def _tracing(exporter, **options):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider, **options)


def _finished_chat(exporter, message, **options):
    model = ScriptedProvider(["x"]).model
    tracing = _tracing(exporter)
    context = pi_sdk.Context(messages=[UserMessage(content="hi")])
    finish = tracing.on_model_call(model, context, pi_sdk.StreamOptions(**options), None)
    finish(message)
    (chat,) = exporter.get_finished_spans()
    return chat


def _message(**fields):
    from pi_sdk import AssistantMessage

    return AssistantMessage(api="a", provider="p", model="m", **fields)


def test_a_bare_chat_span_records_the_response_id_model_and_every_usage_part(exporter):
    usage = Usage(input=10, output=2, cache_read=3, cache_write=4)
    chat = _finished_chat(
        exporter, _message(response_id="resp_1", response_model="m-2026", usage=usage)
    )
    assert chat.parent is None and chat.kind == SpanKind.CLIENT
    assert chat.attributes["gen_ai.response.id"] == "resp_1"
    assert chat.attributes["gen_ai.response.model"] == "m-2026"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 17
    assert chat.attributes["gen_ai.usage.cache_creation.input_tokens"] == 4
    assert chat.status.status_code == StatusCode.UNSET and "error.type" not in chat.attributes
    plain = _finished_chat(InMemorySpanExporter(), _message())
    assert "gen_ai.response.id" not in plain.attributes
    assert plain.attributes["gen_ai.response.model"] == "m"


@pytest.mark.parametrize(
    ("fields", "description", "kind"),
    [
        ({"stop_reason": "error", "error_message": "500 " + "x" * 600}, ("500 " + "x" * 600)[:500],
         "500"),
        ({"stop_reason": "error"}, "_OTHER", "_OTHER"),
        ({"stop_reason": "aborted", "error_message": "Request was aborted"},
         "aborted: Request was aborted", "aborted"),
        ({"stop_reason": "aborted"}, "aborted: aborted", "aborted"),
    ],
)  # fmt: skip
def test_a_failed_call_says_why_in_at_most_500_characters(exporter, fields, description, kind):
    chat = _finished_chat(exporter, _message(**fields))
    assert chat.status.status_code == StatusCode.ERROR
    assert chat.status.description == description
    assert chat.attributes["error.type"] == kind


@tool
async def fail_long(size: int) -> str:
    """Fail with a message of ``size`` characters.

    Args:
        size: Characters.
    """
    raise ValueError("e" * size)


async def test_a_tool_error_says_why_in_at_most_500_characters(otel, exporter):
    calls = [pi_sdk.ToolCall(id="c1", name="fail_long", arguments={"size": 700})]
    provider = ScriptedProvider(
        [
            ScriptedReply(content=calls, usage=Usage(input=1, output=1, cache_write=6)),
            ScriptedReply.text("ok", usage=Usage(input=2, output=1, cache_write=5)),
        ]
    )
    await Agent(model=provider.model, tools=[fail_long]).prompt("go")
    named = by_name(exporter.get_finished_spans())
    (span,) = named["execute_tool fail_long"]
    assert span.status.description == "e" * 500
    (run,) = named["invoke_agent"]
    assert run.attributes["gen_ai.usage.cache_creation.input_tokens"] == 11
    assert run.attributes["gen_ai.usage.input_tokens"] == 1 + 6 + 2 + 5


def test_a_run_that_ends_mid_turn_ends_its_open_tool_and_turn_spans(exporter):
    from pi_sdk.agent import (
        AgentEndEvent,
        AgentStartEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        TurnStartEvent,
    )

    tracing = _tracing(exporter, capture_content=True)
    model = ScriptedProvider(["x"]).model
    for event in (
        AgentStartEvent(),
        TurnStartEvent(),
        ToolExecutionStartEvent(tool_call_id="c1", tool_name="quiet", args={"a": 1}),
        ToolExecutionStartEvent(tool_call_id="c2", tool_name="open", args={}),
        ToolExecutionEndEvent(
            tool_call_id="c1",
            tool_name="quiet",
            result=pi_sdk.AgentToolResult(content=[]),
            is_error=True,
        ),
        ToolExecutionEndEvent(tool_call_id="c9", tool_name="unknown", result=None, is_error=True),
        AgentEndEvent(messages=[]),
    ):
        tracing.on_agent_event(event, "r1", model)
    named = by_name(exporter.get_finished_spans())
    (quiet,) = named["execute_tool quiet"]
    assert quiet.status.description == "the tool failed"  # an error without text
    assert "gen_ai.tool.call.result" not in quiet.attributes
    assert json.loads(quiet.attributes["gen_ai.tool.call.arguments"]) == {"a": 1}
    (still_open,) = named["execute_tool open"]  # ended with the run
    assert still_open.status.status_code == StatusCode.UNSET
    (turn,) = named["turn"]
    (run,) = named["invoke_agent"]
    assert turn.attributes["pi_sdk.turn.index"] == 1 and turn.parent.span_id == run.context.span_id
    assert still_open.parent.span_id == turn.context.span_id
    assert "gen_ai.response.finish_reasons" not in run.attributes  # no reply: no outcome
    assert run.attributes["gen_ai.usage.input_tokens"] == 0


def test_events_of_a_run_that_started_before_the_tracing_are_left_untraced(exporter):
    """A Tracing configured mid-run sees no ``agent_start``: that run's turn, tool and end
    events open and end nothing (and fail nothing); a run started afterwards is traced."""
    from pi_sdk.agent import (
        AgentEndEvent,
        AgentStartEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        TurnEndEvent,
        TurnStartEvent,
    )

    tracing = _tracing(exporter)
    model = ScriptedProvider(["x"]).model
    middle = [
        TurnStartEvent(),
        ToolExecutionStartEvent(tool_call_id="c1", tool_name="t", args={}),
        ToolExecutionEndEvent(
            tool_call_id="c1",
            tool_name="t",
            result=pi_sdk.AgentToolResult(content=[]),
            is_error=False,
        ),
        TurnEndEvent(message=_message(), tool_results=[]),
        AgentEndEvent(messages=[]),
    ]
    for event in middle:
        tracing.on_agent_event(event, "earlier", model)
    assert exporter.get_finished_spans() == ()
    for event in (AgentStartEvent(), *middle):
        tracing.on_agent_event(event, "later", model)
    names = sorted(span.name for span in exporter.get_finished_spans())
    assert names == ["execute_tool t", "invoke_agent", "turn"]
