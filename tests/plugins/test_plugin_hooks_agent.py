"""Plugin hooks in real Agent runs on the scripted provider (issue 6, "Done when")."""

import asyncio
import json
from typing import Literal

from _support.agent import text_of
from _support.plugins import ArgumentGuard
from pydantic import BaseModel

from pi_sdk import (
    AfterToolCallResult,
    Agent,
    TextContent,
    ToolResultMessage,
    UserMessage,
    agent_message_from_dict,
    hookimpl,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def _tool_results(agent):
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


async def test_a_blocking_plugin_turns_the_call_into_an_error_result_with_its_reason(
    plugin_manager, bash, ran
):
    guard = ArgumentGuard("command", "rm", "rm is not allowed here")
    plugin_manager.register(guard, name="guard")
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("bash", {"command": "rm -rf /tmp/x"}), "understood"]
    )
    agent = Agent(model=provider.model, tools=[bash])
    await agent.prompt("clean up")

    assert ran == []  # the tool never ran
    [result] = _tool_results(agent)
    assert result.is_error
    assert result.content == [TextContent(text="rm is not allowed here")]
    seen = provider.calls[1].messages[-1]  # the model reads the reason
    assert isinstance(seen, ToolResultMessage) and seen.content[0].text == "rm is not allowed here"


async def test_async_hook_implementations_are_awaited(plugin_manager, bash, ran):
    order = []

    class Slow:
        @hookimpl
        async def before_tool_call(self, context, signal):
            await asyncio.sleep(0.01)
            order.append(("before", signal is not None))
            return None

        @hookimpl
        async def after_tool_call(self, context):
            await asyncio.sleep(0.01)
            order.append("after")
            text = context.result.content[0].text
            return AfterToolCallResult(content=[TextContent(text=f"{text} (checked)")])

    plugin_manager.register(Slow(), name="slow")
    provider = ScriptedProvider([ScriptedReply.tool_call("bash", {"command": "ls"}), "done"])
    agent = Agent(model=provider.model, tools=[bash])
    await agent.prompt("list")

    assert ran == ["ls"]
    assert order == [("before", True), "after"]
    [result] = _tool_results(agent)
    assert result.content[0].text == "ran ls (checked)"


async def test_two_after_tool_call_plugins_apply_their_changes_in_plugin_order(
    plugin_manager, bash
):
    def appender(tag, **marker):
        class Plugin:
            @hookimpl(**marker)
            def after_tool_call(self, context):
                text = context.result.content[0].text
                return AfterToolCallResult(content=[TextContent(text=f"{text}+{tag}")])

        return Plugin()

    plugin_manager.register(appender("trylast", trylast=True), name="z")
    plugin_manager.register(appender("first"), name="a")
    plugin_manager.register(appender("second"), name="b")  # registered later: runs earlier
    provider = ScriptedProvider([ScriptedReply.tool_call("bash", {"command": "ls"}), "ok"])
    agent = Agent(model=provider.model, tools=[bash])
    await agent.prompt("go")

    [result] = _tool_results(agent)
    assert result.content[0].text == "ran ls+second+first+trylast"


class Reminder(BaseModel):
    role: Literal["reminder"] = "reminder"
    text: str
    priority: int = 0


def _reminder_to_llm(message):
    return [UserMessage(content=f"<reminder priority={message.priority}>{message.text}</reminder>")]


async def test_a_plugin_message_type_survives_json_and_reaches_the_model_converted(
    plugin_manager,
):
    class Reminders:
        @hookimpl
        def register_message_types(self, register):
            register(Reminder, _reminder_to_llm)

    plugin_manager.register(Reminders(), name="reminders")
    provider = ScriptedProvider(["noted", "still noted"])
    agent = Agent(model=provider.model)
    agent.messages = [Reminder(text="tests first", priority=2)]
    await agent.prompt("hello")

    [first_call] = provider.calls
    texts = [text_of(m) for m in first_call.messages if isinstance(m, UserMessage)]
    assert texts == ["<reminder priority=2>tests first</reminder>", "hello"]

    # The transcript keeps the custom type; a JSON round trip gives the same transcript back.
    transcript = list(agent.messages)
    assert isinstance(transcript[0], Reminder)
    dumped = json.dumps([m.model_dump(mode="json") for m in transcript])
    loaded = [agent_message_from_dict(d) for d in json.loads(dumped)]
    assert loaded == transcript
    assert isinstance(loaded[0], Reminder) and loaded[0].priority == 2

    # A new agent on the loaded transcript shows the model the same converted message.
    agent2 = Agent(model=provider.model, messages=loaded)
    await agent2.prompt("again")
    assert text_of(provider.calls[1].messages[0]) == "<reminder priority=2>tests first</reminder>"


class _Raising:
    @hookimpl
    def before_tool_call(self, context, signal):
        raise RuntimeError("policy store down")


class _WrongAnswer:
    @hookimpl
    def before_tool_call(self, context, signal):
        return {"block": False}


class _SilentBlock:
    @hookimpl
    def before_tool_call(self, context, signal):
        from pi_sdk import BeforeToolCallResult

        return BeforeToolCallResult(block=True)


async def test_a_before_tool_call_plugin_fails_closed_with_a_reason_naming_it(
    plugin_manager, bash, ran
):
    from pi_sdk._agent.tool_hooks import BLOCKED_TEXT

    expected = {
        "raising": "before_tool_call of plugin 'raising' failed: RuntimeError: policy store down",
        "wrong": "before_tool_call of plugin 'wrong' returned dict, expected"
        " BeforeToolCallResult or None",
        "silent": BLOCKED_TEXT,
    }
    for name, plugin in (
        ("raising", _Raising()),
        ("wrong", _WrongAnswer()),
        ("silent", _SilentBlock()),
    ):
        plugin_manager.register(plugin, name=name)
        provider = ScriptedProvider([ScriptedReply.tool_call("bash", {"command": "ls"}), "ok"])
        agent = Agent(model=provider.model, tools=[bash])
        await agent.prompt("list")
        plugin_manager.unregister(name=name)
        [result] = _tool_results(agent)
        assert ran == [] and result.is_error, name
        assert result.content == [TextContent(text=expected[name])], name
