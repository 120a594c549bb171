"""The Agent's queue controls drop exactly their own queue; its repr says what it is, briefly.

``clear_steering_queue`` drops queued steering messages and keeps follow-ups,
``clear_follow_up_queue`` the reverse, ``clear_all_queues`` both (pi-agent-core 1.6
``clearSteeringQueue`` / ``clearFollowUpQueue`` / ``clearAllQueues``). ``repr(agent)`` names
the model id, the transcript's length and whether a run is going, and nothing else (no
prompt, no message text, no key).
"""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk import Agent, UserMessage
from pi_sdk.testing import ScriptedProvider


def _texts(agent: Agent) -> list[str]:
    return [m.text for m in agent.peek_queued_messages()]  # type: ignore[union-attr]


def _queued() -> Agent:
    agent = Agent(steering_mode="all", follow_up_mode="all")
    agent.steer("steer 1")
    agent.steer("steer 2")
    agent.follow_up("follow 1")
    return agent


def test_clearing_steering_keeps_the_follow_ups() -> None:
    agent = _queued()
    agent.clear_steering_queue()
    assert agent.has_queued_messages()
    assert _texts(agent) == ["follow 1"]


def test_clearing_follow_ups_keeps_the_steering() -> None:
    agent = _queued()
    agent.clear_follow_up_queue()
    assert _texts(agent) == ["steer 1", "steer 2"]
    agent.clear_steering_queue()
    assert not agent.has_queued_messages() and _texts(agent) == []


def test_clearing_all_drops_both() -> None:
    agent = _queued()
    agent.clear_all_queues()
    assert not agent.has_queued_messages() and _texts(agent) == []


async def test_a_cleared_follow_up_is_never_sent() -> None:
    provider = ScriptedProvider(["first answer", "second answer"])
    agent = Agent(model=provider.model)
    agent.follow_up("dropped")
    agent.clear_follow_up_queue()
    await agent.prompt("hello")
    sent = [m.text for m in agent.messages if isinstance(m, UserMessage)]
    assert sent == ["hello"] and len(provider.calls) == 1


@pytest.mark.parametrize("with_model", [True, False])
def test_the_repr_names_model_transcript_length_and_running_only(with_model: bool) -> None:
    model = ScriptedProvider(["x"]).model if with_model else None
    agent = Agent(model=model, system_prompt="secret prompt sk-live-123")
    agent.messages = [UserMessage(content="private text"), UserMessage(content="more")]
    expected_model = repr(model.id) if model is not None else "None"
    assert repr(agent) == f"Agent(model={expected_model}, messages=2, running=False)"
    assert "secret" not in repr(agent) and "private" not in repr(agent)


async def test_the_repr_says_running_during_a_run() -> None:
    provider = ScriptedProvider(["x"])
    agent = Agent(model=provider.model)
    seen: list[str] = []

    async def listener(event: pi_sdk.AgentEvent, signal: object = None) -> None:
        if event.type == "turn_start":
            seen.append(repr(agent))

    agent.subscribe(listener)
    await agent.prompt("go")
    assert seen and seen[0].endswith("running=True)")
    assert repr(agent).endswith("messages=2, running=False)")
