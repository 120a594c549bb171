"""Tool calls whose arguments are not one whole JSON object are never run (issue 11 item 1).

Each case is said in every wire API's format (:mod:`_support.wire`), served over loopback HTTP
and decoded by the real adapter; an :class:`pi_sdk.Agent` then handles the reply. The call gets
an error result the model can read, the tool never runs, the raw text stays on the call in the
transcript, and the saved transcript continues on the next wire API with a request whose
tool-call arguments are valid JSON (``{}``) for that vendor.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, Step, sse_step, text_reply
from _support.wire import WIRES, Call, Calls, Tokens, Wire

import pi_sdk
from pi_sdk import AssistantMessage, StreamOptions, ToolCall, ToolResultMessage
from pi_sdk._agent.session import dumps_session, loads_session
from pi_sdk.testing import ScriptedProvider, ScriptedReply

KEY = "invalid-args-key-123"
GARBAGE = Call("call_g1", "list_dir", ('garbage{"path": ', '"/home/me/project"}'))
TRUNCATED = Call("call_t1", "list_dir", ('{"path": ', '"/home/me/pro'))
EMPTY = Call("call_e1", "list_dir", ("",))
WHOLE_CALLS = {"google-generative-ai", "google-vertex"}
"""Gemini sends each ``functionCall`` whole, ``args`` an object or absent: no text to cut."""


def _ids(wires: Any) -> list[str]:
    return [wire.api for wire in wires]


class Recorder:
    """A ``list_dir`` tool whose every argument is optional (the issue's dangerous case)."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        @pi_sdk.tool
        async def list_dir(path: str = "/") -> str:
            """List a directory.

            Args:
                path: The directory.
            """
            self.ran.append(path)
            return f"listing of {path}"

        self.tool = list_dir


def _garbage(wire: Wire) -> Step:
    body, terminal = wire.events([Calls((GARBAGE,))], Tokens())
    return sse_step(body + terminal)


def _at_limit(call: Call):  # noqa: ANN202 - a step factory
    def step(wire: Wire) -> Step:
        return sse_step(wire.at_token_limit(Calls((call,))))

    return step


def _cut(wire: Wire) -> Step:
    """The stream ends right after the first argument fragment (Gemini: after the call)."""
    body, _ = wire.events([Calls((TRUNCATED,))], Tokens())
    marker = "/home/me/pro"
    at = next(
        i
        for i, item in enumerate(body)
        if marker in (item.decode("latin-1") if isinstance(item, bytes) else json.dumps(item))
    )
    return sse_step(body[: at + 1], end="close")


def _tool_call(message: AssistantMessage) -> ToolCall:
    (call,) = message.tool_calls
    return call


def _replayed_arguments(body: Any) -> list[Any]:
    """Every tool-call argument value in a request body, on any wire API.

    A tool call is an object with a ``name`` and ``arguments`` (OpenAI, Mistral), ``args``
    (Gemini) or ``input`` (Anthropic, Bedrock); tool definitions use other keys.
    """
    found: list[Any] = []
    if isinstance(body, dict):
        if "name" in body:
            found += [body[key] for key in ("arguments", "args", "input") if key in body]
        for value in body.values():
            found += _replayed_arguments(value)
    elif isinstance(body, list):
        for value in body:
            found += _replayed_arguments(value)
    return found


async def _run(
    wire: Wire, steps: list[Step], prompt: str, recorder: Recorder, messages: Any = ()
) -> tuple[pi_sdk.Agent, list[Any]]:
    """Prompt an agent on ``wire`` against a loopback server playing ``steps``."""
    async with LoopbackServer(steps) as server:
        agent = pi_sdk.Agent(
            model=wire.model(server.url),
            tools=[recorder.tool],
            messages=messages,
            stream_options=StreamOptions(api_key=KEY, max_retries=0),
        )
        await agent.prompt(prompt)
        requests = list(server.requests)
    return agent, requests


async def _continue_elsewhere(messages: list[Any], wire: Wire) -> tuple[Any, AssistantMessage]:
    """Load the saved transcript and prompt again on the next wire API; its request body."""
    session = loads_session(dumps_session(messages))
    other = WIRES[(WIRES.index(wire) + 1) % len(WIRES)]
    recorder = Recorder()
    steps = [text_reply(other.api, "Fine.")]
    agent, (request,) = await _run(other, steps, "go on", recorder, session.messages)
    reply = agent.messages[-1]
    assert isinstance(reply, AssistantMessage)
    assert reply.stop_reason == "stop", reply.error_message
    return json.loads(request[2]), reply


CASES = {
    "garbage": (_garbage, "arguments were not valid JSON: Expecting value"),
    "truncated at the token limit": (
        _at_limit(TRUNCATED),
        "arguments were cut off: the reply stopped at max tokens",
    ),
    "empty at the token limit": (
        _at_limit(EMPTY),
        "arguments were cut off: the reply stopped at max tokens",
    ),
}


# A whole Gemini call has no text to cut: its case is the whole-call test below.
PAIRS = [
    pytest.param(wire, case, id=f"{wire.api}-{case}")
    for case in CASES
    for wire in WIRES
    if not (case == "empty at the token limit" and wire.api in WHOLE_CALLS)
]


@pytest.mark.parametrize(("wire", "case"), PAIRS)
async def test_invalid_arguments_get_an_error_result_and_the_tool_never_runs(
    wire: Wire, case: str
) -> None:
    make_step, expected_text = CASES[case]
    recorder = Recorder()
    agent, requests = await _run(
        wire, [make_step(wire), text_reply(wire.api, "Sorry.")], "list my project", recorder
    )
    assert len(requests) == 2
    assert recorder.ran == []
    assistant, result = agent.messages[1], agent.messages[2]
    assert isinstance(assistant, AssistantMessage)
    assert isinstance(result, ToolResultMessage)
    call = _tool_call(assistant)
    assert call.invalid_arguments is not None
    assert result.is_error
    assert result.tool_call_id == call.id
    text: str = result.content[0].text  # pyright: ignore[reportAttributeAccessIssue]
    if case == "garbage" and wire.api in WHOLE_CALLS:  # args was a JSON string
        expected_text = "arguments were not valid JSON: a JSON string is not an object"
    assert expected_text in text
    if case == "garbage":
        assert "garbage" in call.invalid_arguments
        assert "garbage" in text

    body, _ = await _continue_elsewhere(list(agent.messages), wire)
    assert _replayed_arguments(body) in ([{}], ["{}"])
    assert json.dumps(expected_text)[1:-1] in json.dumps(body)


@pytest.mark.parametrize("wire", WIRES, ids=_ids(WIRES))
async def test_a_stream_cut_mid_arguments_never_runs_the_tool(wire: Wire) -> None:
    recorder = Recorder()
    agent, requests = await _run(wire, [_cut(wire)], "list my project", recorder)
    assert len(requests) == 1
    assert recorder.ran == []
    assistant = agent.messages[-1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.stop_reason == "error"
    body, _ = await _continue_elsewhere(list(agent.messages), wire)
    assert _replayed_arguments(body) == []  # the failed turn is not replayed


@pytest.mark.parametrize("wire", WIRES, ids=_ids(WIRES))
async def test_empty_arguments_of_a_complete_call_are_no_arguments(wire: Wire) -> None:
    """An empty text on a call the vendor closed is ``{}`` (Anthropic and Bedrock send no
    argument text for a tool without parameters); the schema then decides."""
    recorder = Recorder()
    body, terminal = wire.events([Calls((EMPTY,))], Tokens())
    agent, requests = await _run(
        wire, [sse_step(body + terminal), text_reply(wire.api)], "list /", recorder
    )
    assert recorder.ran == ["/"]
    call = _tool_call(agent.messages[1])  # pyright: ignore[reportArgumentType]
    assert call.invalid_arguments is None
    assert call.arguments == {}


@pytest.mark.parametrize(
    "wire", [w for w in WIRES if w.api in WHOLE_CALLS], ids=sorted(WHOLE_CALLS)
)
async def test_a_whole_gemini_call_at_the_token_limit_is_complete(wire: Wire) -> None:
    recorder = Recorder()
    whole = Call("call_w", "list_dir", ('{"path": "/tmp"}',))
    agent, requests = await _run(
        wire, [_at_limit(whole)(wire), text_reply(wire.api)], "list /tmp", recorder
    )
    assert recorder.ran == ["/tmp"]


async def test_scripted_invalid_arguments_and_the_error_text_bound() -> None:
    raw = '{"path": "' + "x" * 5000
    provider = ScriptedProvider(
        [
            ScriptedReply(content=[ToolCall(id="c1", name="list_dir", invalid_arguments=raw)]),
            ScriptedReply(content=[ToolCall(id="c2", name="list_dir", invalid_arguments="[1]")]),
            "ok",
        ]
    )
    recorder = Recorder()
    agent = pi_sdk.Agent(model=provider.model, tools=[recorder.tool])
    await agent.prompt("go")
    assert recorder.ran == []
    first, second = (m for m in agent.messages if isinstance(m, ToolResultMessage))
    text = first.content[0].text  # pyright: ignore[reportAttributeAccessIssue]
    assert text.startswith("arguments were not valid JSON: Unterminated string")
    assert text.endswith("... (3010 more characters)")
    assert second.content[0].text == (  # pyright: ignore[reportAttributeAccessIssue]
        "arguments were not valid JSON: a JSON array is not an object; received: [1]"
    )
    # The raw text is kept on the call and in the saved file (JSON ``invalidArguments``).
    saved = json.loads(dumps_session(agent.messages).splitlines()[2])
    assert saved["content"][0]["invalidArguments"] == raw
    valid = pi_sdk.ToolCall(id="c", name="n", arguments={"a": 1})
    assert "invalidArguments" not in valid.model_dump()
