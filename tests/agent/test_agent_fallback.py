"""``Agent(fallback=...)``: the Agent-level model fallback (issue 28, item 2).

The same policy as ``StreamOptions(fallback=...)``, given once to the Agent and checked where
it is given: an unknown model is refused at construction, naming it; a chain that would try the
same model twice with nothing changed (the Agent's own model included) is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _support.agent import isolated_plugins  # noqa: F401

import pi_sdk
from pi_sdk import AgentToolResult, FallbackPolicy, ToolCall
from pi_sdk.errors import ModelNotFoundError
from pi_sdk.provider import Provider
from pi_sdk.testing import ScriptedProvider, ScriptedReply

OVERLOADED = "529 Overloaded: overloaded_error: Overloaded"


def _agent(primary: ScriptedProvider, fallback: Any, **options: Any) -> pi_sdk.Agent:
    async def step(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult.text("stepped")

    tool = pi_sdk.AgentTool(name="step", execute=step)
    return pi_sdk.Agent(model=primary.model, tools=[tool], fallback=fallback, **options)


async def test_every_turn_moves_on_when_the_primary_is_overloaded() -> None:
    primary = ScriptedProvider(
        [ScriptedReply.failure(OVERLOADED), ScriptedReply.failure(OVERLOADED)]
    )
    backup = ScriptedProvider(
        [ScriptedReply(content=[ToolCall(id="c1", name="step", arguments={})]), "done"]
    )
    agent = _agent(primary, [backup.model])
    await asyncio.wait_for(agent.prompt("go"), 10)

    replies = [m for m in agent.messages if isinstance(m, pi_sdk.AssistantMessage)]
    assert [r.stop_reason for r in replies] == ["toolUse", "stop"]
    assert {r.model for r in replies} == {backup.model.id}  # the model that answered
    assert len(primary.calls) == 2 and len(backup.calls) == 2  # tried first on every turn
    for reply in replies:  # each attempt is visible on the reply that ended the turn
        (diagnostic,) = [d for d in reply.diagnostics or [] if d.type == "fallback"]
        assert diagnostic.error == {"name": "overloaded", "message": OVERLOADED}
        assert diagnostic.details["model"] == primary.model.id
    assert agent.state.error is None


async def test_a_sticky_policy_object_stays_on_the_model_that_answered() -> None:
    primary = ScriptedProvider([ScriptedReply.failure(OVERLOADED)])
    backup = ScriptedProvider(
        [ScriptedReply(content=[ToolCall(id="c1", name="step", arguments={})]), "done"]
    )
    policy = FallbackPolicy([backup.model], sticky=True)
    agent = _agent(primary, policy)
    assert agent.fallback is policy
    await asyncio.wait_for(agent.prompt("go"), 10)
    assert len(primary.calls) == 1 and len(backup.calls) == 2  # the second turn starts there


async def test_an_auth_error_does_not_move_on() -> None:
    primary = ScriptedProvider([ScriptedReply.failure("401 Unauthorized: invalid x-api-key")])
    backup = ScriptedProvider(["never"])
    agent = _agent(primary, [backup.model])
    await asyncio.wait_for(agent.prompt("go"), 10)
    last = agent.messages[-1]
    assert isinstance(last, pi_sdk.AssistantMessage) and last.stop_reason == "error"
    assert backup.calls == [] and "401" in (agent.state.error or "")


def test_an_unknown_model_is_refused_at_construction_naming_it() -> None:
    primary = ScriptedProvider([])
    with pytest.raises(ModelNotFoundError, match="gpt-9-ultra"):
        _agent(primary, ["openai/gpt-9-ultra"])
    # a policy given as an object is checked against the Agent's collection too
    with pytest.raises(ModelNotFoundError, match="nobody/nothing"):
        _agent(primary, FallbackPolicy(["nobody/nothing"]))


def test_the_same_model_twice_with_nothing_changed_is_refused() -> None:
    primary, backup = ScriptedProvider([]), ScriptedProvider([])
    with pytest.raises(ValueError, match=f"tries scripted/{backup.model.id} twice"):
        _agent(primary, [backup.model, backup.model])
    with pytest.raises(ValueError, match=f"tries scripted/{primary.model.id} twice"):
        _agent(primary, [backup.model, primary.model])  # the Agent's own model
    # the same model with something changed is another attempt
    agent = _agent(primary, [(primary.model, {"temperature": 0.0}), backup.model])
    assert agent.fallback is not None


async def test_changing_the_model_or_the_fallback_is_checked_again() -> None:
    primary, backup = ScriptedProvider([]), ScriptedProvider(["never"])
    agent = _agent(primary, [backup.model])
    with pytest.raises(ValueError, match="twice"):
        agent.fallback = [primary.model]
    with pytest.raises(TypeError, match="FallbackPolicy or a list"):
        agent.fallback = "openai/gpt-4o"  # type: ignore[assignment]
    assert agent.fallback is not None and agent.fallback.entries  # the old one is kept
    agent.model = backup.model  # now the first model is also the fallback's only one
    with pytest.raises(ValueError, match="twice"):
        await agent.prompt("go")
    assert backup.calls == [] and agent.messages == []
    agent.fallback = None
    await asyncio.wait_for(agent.prompt("go"), 10)
    assert len(backup.calls) == 1


def test_names_resolve_in_the_collection_of_the_agents_stream_fn() -> None:
    primary, backup = ScriptedProvider([]), ScriptedProvider([])
    name = f"scripted/{backup.model.id}"
    with pytest.raises(ModelNotFoundError, match=name):
        _agent(primary, [name])  # the default collection does not list scripted models
    models = pi_sdk.Models([Provider(id="scripted", models=[backup.model])])
    models.register_api_provider(pi_sdk.get_api_provider(backup.model.api))
    agent = _agent(primary, [name], stream_fn=models.stream)
    assert agent.fallback is not None
    assert [e.model.id for e in agent.fallback.entries(models)] == [backup.model.id]


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("openai/gpt-4o", "str"),  # one name, not a list of them
        (b"openai/gpt-4o", "bytes"),
        ({"openai/gpt-4o": {}}, "dict"),
        (3, "int"),
    ],
)
def test_a_fallback_that_is_neither_a_policy_nor_a_list_names_its_type(
    value: Any, name: str
) -> None:
    primary = ScriptedProvider([])
    with pytest.raises(TypeError) as caught:
        _agent(primary, value)
    assert str(caught.value) == (
        "Agent(fallback=...) takes a FallbackPolicy or a list of models"
        f" ('provider/id', Model, (model, options)); got {name}"
    )
