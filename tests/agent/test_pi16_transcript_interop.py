"""pi 1.6 and pi-sdk hand a transcript back and forth (issue 27, interop).

Under Node 22, the real ``@earendil-works/pi-agent-core`` / ``pi-ai`` 1.6.0 write a transcript
(``tests/node/pi16_transcript_roundtrip.mjs``): the leading system message with the prompt and
tools, a tool call, pi's own announcement of a tool change, a prompt update with sections, the
1.6 reply fields. pi-sdk loads it (every field typed, dumped back to pi's JSON), saves and loads
it as a session, continues it on another vendor (a scripted provider) with a tool change of its
own, and writes it back; pi loads that file, sees the same prompt and tools, and continues the
same conversation. Skipped, with one message, where Node 22 or pi 1.6 is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _support.node22 import needs_pi16, run_mjs
from pydantic import TypeAdapter

import pi_sdk
from pi_sdk import SystemMessage
from pi_sdk.testing import ScriptedProvider

pytestmark = needs_pi16
MESSAGES: TypeAdapter[list[pi_sdk.Message]] = TypeAdapter(list[pi_sdk.Message])


@pi_sdk.tool
def get_alerts(city: str) -> str:
    """Weather alerts for a city."""
    return f"no alerts in {city}"


def runnable(declared: pi_sdk.Tool) -> pi_sdk.AgentTool:
    """A tool pi-sdk can run, declared exactly as the transcript declares it."""

    async def execute(*_: Any) -> str:
        return "rain"

    return pi_sdk.AgentTool(
        name=declared.name,
        description=declared.description,
        parameters=declared.parameters,
        execute=execute,
    )


def typed_everywhere(model: Any) -> None:
    assert model.model_extra is None, (type(model).__name__, model.model_extra)
    for value in vars(model).values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, pi_sdk.types.WireModel):
                typed_everywhere(item)


async def test_a_pi_transcript_loads_continues_elsewhere_and_goes_back(tmp_path: Path) -> None:
    written: list[dict[str, Any]] = run_mjs("pi16_transcript_roundtrip.mjs", "write")
    roles = [m["role"] for m in written]
    assert roles.count("system") == 3  # the prompt, pi's update, pi's tool announcement

    # Load: every field typed, dumped back to pi's JSON.
    messages = MESSAGES.validate_python(written)
    for message in messages:
        typed_everywhere(message)
    assert MESSAGES.dump_python(messages, mode="json") == written

    # Through a pi-sdk session file and back.
    path = tmp_path / "run.jsonl"
    pi_sdk.save_session(path, messages)
    session = pi_sdk.load_session(path)
    assert MESSAGES.dump_python(list(session.messages), mode="json") == written

    # pi-sdk reads the prompt and tools pi declared.
    prompt = "You are a weather bot.\n\nAnswer in one line.\n\n<units>metric</units>"
    assert pi_sdk.current_system_prompt(messages) == prompt
    assert [t.name for t in pi_sdk.current_tools(messages)] == ["get_forecast"]

    # Continue on another vendor, with a tool change of pi-sdk's own.
    provider = ScriptedProvider(["Rain tomorrow."])
    agent = pi_sdk.Agent(model=provider.model, messages=list(session.messages))
    agent.tools = [*map(runnable, pi_sdk.current_tools(messages)), get_alerts]
    assert agent.system_prompt == prompt
    await agent.prompt("Any alerts?")
    sent = provider.calls[0].context
    assert pi_sdk.current_system_prompt(sent) == prompt
    assert [t.name for t in pi_sdk.current_tools(sent)] == ["get_forecast", "get_alerts"]
    ours = [m for m in agent.messages[len(messages) :] if isinstance(m, SystemMessage)]
    assert [[t.name for t in m.tools_added or ()] for m in ours] == [["get_alerts"]]
    back = MESSAGES.dump_python(list(agent.messages), mode="json")  # type: ignore[arg-type]

    # pi loads our file: the same prompt, tools and conversation, and continues it.
    pi = run_mjs("pi16_transcript_roundtrip.mjs", "read", stdin=back)
    assert pi["loaded"] == {"prompt": prompt, "tools": ["get_forecast", "get_alerts"]}
    assert pi["sent"][: len(back)] == back  # no tool change announced: the same declarations
    assert [m["role"] for m in pi["sent"][len(back) :]] == ["user"]
    assert pi["messages"][: len(back)] == back
    assert [m["role"] for m in pi["messages"][len(back) :]] == ["user", "assistant"]
    assert pi["prompt"] == prompt
