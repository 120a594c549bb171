"""Bad settings fail at once, naming the valid values (issue 11 item 2).

Reasoning levels (pi-ai 1.6 ``ModelThinkingLevel``, ``max`` included), a model's supported levels
and clamping (pi-ai 1.6 ``getSupportedThinkingLevels`` / ``clampThinkingLevel`` over
``thinkingLevelMap``; checked against pi's own functions in tests/core/test_pi16_shapes.py), and
prompts that would send the model nothing.
"""

from __future__ import annotations

import pytest
from _support.agent import isolated_plugins  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk import AgentLoopConfig, ImageContent, StreamOptions, TextContent, UserMessage
from pi_sdk.testing import ScriptedProvider

LEVELS = "'minimal', 'low', 'medium', 'high', 'xhigh', 'max'"


@pytest.mark.parametrize("bad", ["hgih", "ultra", "HIGH", "", 3])
def test_an_unknown_reasoning_level_is_a_value_error_naming_the_levels(bad: object) -> None:
    with pytest.raises(ValueError, match="unknown reasoning level") as info:
        StreamOptions(reasoning=bad)  # pyright: ignore[reportArgumentType]
    assert LEVELS in str(info.value)
    with pytest.raises(ValueError, match="unknown reasoning level"):
        AgentLoopConfig(model=ScriptedProvider().model, reasoning=bad)  # pyright: ignore[reportArgumentType]


def test_valid_reasoning_levels_and_off() -> None:
    for level in ("minimal", "low", "medium", "high", "xhigh", "max"):
        assert StreamOptions(reasoning=level).reasoning == level  # pyright: ignore[reportArgumentType]
    assert StreamOptions(reasoning="off").reasoning is None  # pyright: ignore[reportArgumentType]
    assert StreamOptions().reasoning is None


def test_an_unknown_agent_thinking_level_is_a_value_error_at_construction_and_assignment() -> None:
    with pytest.raises(
        ValueError, match=f"unknown thinking level 'ultra': valid levels are 'off', {LEVELS}"
    ):
        pi_sdk.Agent(thinking_level="ultra")  # pyright: ignore[reportArgumentType]
    agent = pi_sdk.Agent(thinking_level="high")
    with pytest.raises(ValueError, match="unknown thinking level"):
        agent.thinking_level = "maximum"  # pyright: ignore[reportAttributeAccessIssue]
    assert agent.thinking_level == "high"
    agent.thinking_level = "max"  # pi-ai 1.6's opt-in level
    assert agent.thinking_level == "max"
    agent.state.thinking_level = "off"
    assert agent.thinking_level == "off"


def _model(reasoning: bool, level_map: dict[str, str | None] | None) -> pi_sdk.Model:
    return pi_sdk.Model(
        id="m", api="scripted", provider="p", reasoning=reasoning, thinking_level_map=level_map
    )


@pytest.mark.parametrize(
    ("reasoning", "level_map", "supported"),
    [
        (False, None, ["off"]),
        (False, {"xhigh": "xhigh"}, ["off"]),
        (True, None, ["off", "minimal", "low", "medium", "high"]),
        (True, {"xhigh": "max"}, ["off", "minimal", "low", "medium", "high", "xhigh"]),
        (True, {"off": None, "xhigh": "xhigh"}, ["minimal", "low", "medium", "high", "xhigh"]),
        (
            True,
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            ["low", "high"],
        ),
        (
            True,
            {"minimal": None, "low": None, "medium": None, "high": "high", "xhigh": "max"},
            ["off", "high", "xhigh"],
        ),
        (True, {"max": "max"}, ["off", "minimal", "low", "medium", "high", "max"]),
        (
            True,
            {"off": None, "xhigh": "xhigh", "max": "max"},
            ["minimal", "low", "medium", "high", "xhigh", "max"],
        ),
        (
            True,
            {"xhigh": "xhigh", "max": None},
            ["off", "minimal", "low", "medium", "high", "xhigh"],
        ),
    ],
)
def test_supported_thinking_levels_follow_pi_ai_1_6(
    reasoning: bool, level_map: dict[str, str | None] | None, supported: list[str]
) -> None:
    assert _model(reasoning, level_map).supported_thinking_levels() == supported


@pytest.mark.parametrize(
    ("level_map", "level", "clamped"),
    [
        (None, "xhigh", "high"),  # no xhigh: the nearest below
        ({"off": None, "xhigh": "xhigh"}, "off", "minimal"),  # no off: the nearest above
        (
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            "medium",
            "high",
        ),
        (
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            "minimal",
            "low",
        ),
        (
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            "xhigh",
            "high",
        ),
        ({"xhigh": "max"}, "xhigh", "xhigh"),
        (None, "medium", "medium"),
        (None, "max", "high"),  # max is opt-in: the nearest below
        ({"xhigh": "xhigh"}, "max", "xhigh"),
        ({"max": "max"}, "xhigh", "max"),  # no xhigh: the nearest above
        ({"xhigh": "xhigh", "max": "max"}, "max", "max"),
    ],
)
def test_clamp_thinking_level_follows_pi_ai_1_6(
    level_map: dict[str, str | None] | None, level: str, clamped: str
) -> None:
    assert _model(True, level_map).clamp_thinking_level(level) == clamped  # pyright: ignore[reportArgumentType]


def test_clamping_without_reasoning_and_a_typo() -> None:
    assert _model(False, None).clamp_thinking_level("high") == "off"
    with pytest.raises(ValueError, match="unknown thinking level 'hihg'"):
        _model(True, None).clamp_thinking_level("hihg")  # pyright: ignore[reportArgumentType]


def test_the_level_map_round_trips_in_pi_json_and_comes_from_the_catalog() -> None:
    model = _model(True, {"off": None, "xhigh": "max"})
    data = model.model_dump()
    assert data["thinkingLevelMap"] == {"off": None, "xhigh": "max"}
    assert pi_sdk.Model.model_validate(data).supported_thinking_levels()[-1] == "xhigh"
    assert "thinkingLevelMap" not in _model(True, None).model_dump()


@pytest.mark.parametrize(
    "prompt",
    [
        "",
        "   \n",
        [],
        UserMessage(content=""),
        UserMessage(content=[]),
        UserMessage(content=[TextContent(text=" ")]),
        [UserMessage(content="fine"), UserMessage(content=[])],
    ],
    ids=["empty", "blank", "no messages", "empty str", "no blocks", "blank block", "second empty"],
)
async def test_a_prompt_with_no_content_is_a_value_error_and_sends_nothing(prompt: object) -> None:
    provider = ScriptedProvider(["never"])
    agent = pi_sdk.Agent(model=provider.model)
    with pytest.raises(ValueError, match="prompt"):
        await agent.prompt(prompt)  # pyright: ignore[reportArgumentType]
    assert provider.calls == []
    assert agent.messages == []


async def test_an_image_alone_is_content() -> None:
    provider = ScriptedProvider(["a cat"])
    agent = pi_sdk.Agent(model=provider.model)
    image = ImageContent(data="aGk=", mime_type="image/png")
    await agent.prompt("", images=[image])
    assert len(provider.calls) == 1


@pytest.mark.parametrize(
    ("prompt", "shown"),
    [
        (123, "int 123"),
        (None, "NoneType None"),
        ({"role": "user", "content": "hi"}, "dict {'role': 'user', 'content': 'hi'}"),
        (b"hi", "bytes b'hi'"),
        ([UserMessage(content="fine"), 5], "int 5 (message 1)"),
        (["a", "b"], "str 'a' (message 0)"),
    ],
    ids=["int", "None", "dict", "bytes", "int in a list", "str in a list"],
)
async def test_a_prompt_that_is_not_a_message_is_a_type_error_and_sends_nothing(
    prompt: object, shown: str
) -> None:
    """Text, one message or a list of messages; anything else is named, nothing is queued."""
    provider = ScriptedProvider(["never"])
    agent = pi_sdk.Agent(model=provider.model)
    with pytest.raises(TypeError) as info:
        await agent.prompt(prompt)  # pyright: ignore[reportArgumentType]
    hint = " (from JSON? pi_sdk.agent_message_from_dict reads it)" if "dict" in shown else ""
    assert str(info.value) == (
        "prompt() takes text, a message (pi_sdk.UserMessage, ..., or a custom message with a"
        f" role) or a list of messages; got {shown}{hint}"
    )
    assert provider.calls == [] and agent.messages == []


@pytest.mark.parametrize("queue", ["steer", "follow_up"])
@pytest.mark.parametrize("bad", [123, None, {"role": "user", "content": "hi"}])
async def test_a_queued_message_that_is_not_a_message_is_a_type_error(
    queue: str, bad: object
) -> None:
    """Queued, it would enter the transcript as it is and break saving the session."""
    provider = ScriptedProvider(["one", "two"])
    agent = pi_sdk.Agent(model=provider.model)
    with pytest.raises(TypeError, match=rf"^{queue}\(\) takes text, a message"):
        getattr(agent, queue)(bad)
    assert agent.peek_queued_messages() == []
    await agent.prompt("hi")
    assert [m.role for m in agent.messages] == ["user", "assistant"]


@pytest.mark.parametrize("bad", ["anthropic/claude-sonnet-4-5", {"id": "m"}, 3])
def test_a_model_that_is_not_a_model_is_a_type_error_at_construction_and_assignment(
    bad: object,
) -> None:
    """A ``"provider/id"`` string reads like a model (``fallback`` takes them): say what to do."""
    hint = (
        "Agent model must be a pi_sdk.Model, e.g. pi_sdk.get_model('anthropic',"
        f" 'claude-sonnet-4-5'); got {type(bad).__name__} {bad!r}"
    )
    with pytest.raises(TypeError) as info:
        pi_sdk.Agent(model=bad)  # pyright: ignore[reportArgumentType]
    assert str(info.value) == hint
    model = ScriptedProvider().model
    agent = pi_sdk.Agent(model=model)
    for target in (agent, agent.state):
        with pytest.raises(TypeError) as info:
            target.model = bad  # pyright: ignore[reportAttributeAccessIssue]
        assert str(info.value) == hint
    assert agent.model is model
    agent.model = None  # no model yet: prompt() says so
    assert agent.model is None


def _named_tool(name: str) -> pi_sdk.AgentTool:
    async def run(*_: object) -> pi_sdk.AgentToolResult:
        return pi_sdk.AgentToolResult.text(name)

    return pi_sdk.AgentTool(name=name, description="d", parameters={"type": "object"}, execute=run)


def test_two_tools_with_one_name_are_a_value_error_at_construction_and_assignment() -> None:
    """Vendors answer a request declaring a name twice with HTTP 400; say so before any call."""
    first, second, other = _named_tool("read"), _named_tool("read"), _named_tool("write")
    message = "two tools are named 'read': tool names must be unique (vendors reject the request)"
    with pytest.raises(ValueError) as info:
        pi_sdk.Agent(tools=[first, other, second])
    assert str(info.value) == message
    agent = pi_sdk.Agent(tools=[first, other])
    for target in (agent, agent.state):
        with pytest.raises(ValueError) as info:
            target.tools = [first, other, first]
        assert str(info.value) == message
    assert [t.name for t in agent.tools] == ["read", "write"]  # unchanged
