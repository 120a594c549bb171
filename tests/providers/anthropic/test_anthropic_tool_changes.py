"""Anthropic native tool changes (pi-ai 1.6 ``convertMessages``): removals, redefinitions, OAuth.

With ``supportsMidConvoSystemMessages`` and ``supportsMidConvoToolChanges`` and tools on the
leading system message, a later system message becomes a ``system`` message of
``tool_removal`` blocks (one per withdrawn tool, in order; a tool the same message defines
anew is not withdrawn, its new definition replaces it) followed by ``tool_addition`` blocks,
held until just before the next assistant message. In Claude Code OAuth mode the withdrawn
names go in Claude Code's casing. Without tools on the leading message the changes are not
native: every system message folds into the prompt.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_anthropic.messages import build_request

import pi_sdk
from pi_sdk import Context, StreamOptions, SystemMessage, Tool, UserMessage
from pi_sdk.types import ToolReference

PARAMS = {"type": "object", "properties": {}}


def _tool(name: str, description: str = "v1") -> Tool:
    return Tool(name=name, description=description, parameters=PARAMS)


def _model() -> pi_sdk.Model:
    return pi_sdk.Model(
        id="claude-sonnet-4-6",
        api="anthropic-messages",
        provider="anthropic",
        base_url="https://api.anthropic.com",
        compat={"supportsMidConvoSystemMessages": True, "supportsMidConvoToolChanges": True},
    )


def _reply(text: str) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        content=[pi_sdk.TextContent(text=text)],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-6",
        stop_reason="stop",
    )


def _context(change: SystemMessage, lead_tools: list[Tool] | None) -> Context:
    return Context(
        messages=[
            SystemMessage(system_prompt="Base.", tools_added=lead_tools),
            UserMessage(content="one"),
            _reply("first"),
            change,
            UserMessage(content="two"),
        ]
    )


def _system_messages(body: dict[str, Any]) -> list[Any]:
    return [m["content"] for m in body["messages"] if m["role"] == "system"]


def _removal(name: str) -> dict[str, Any]:
    return {"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}}


def _addition_names(blocks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (b["tool"]["definition"]["name"], b["tool"]["definition"]["description"])
        for b in blocks
        if b["type"] == "tool_addition"
    ]


def test_removals_in_order_skip_a_redefined_tool() -> None:
    change = SystemMessage(
        tools_removed=[ToolReference(name="a"), ToolReference(name="b"), ToolReference(name="c")],
        tools_added=[_tool("a", "v2"), _tool("d")],
    )
    lead = [_tool("a"), _tool("b"), _tool("c")]
    body = build_request(_model(), _context(change, lead), StreamOptions())
    (blocks,) = _system_messages(body)
    assert [b for b in blocks if b["type"] == "tool_removal"] == [_removal("b"), _removal("c")]
    assert _addition_names(blocks) == [("a", "v2"), ("d", "v1")]
    assert blocks[0]["type"] == "tool_removal"  # removals come first
    names = [t["name"] for t in body["tools"]]
    assert names == ["a", "b", "c", "__pi_deferred_placeholder__"]


def test_oauth_withdraws_in_claude_code_casing() -> None:
    change = SystemMessage(tools_removed=[ToolReference(name="read"), ToolReference(name="mine")])
    lead = [_tool("read"), _tool("mine")]
    options = StreamOptions(cache_retention="none")
    body = build_request(_model(), _context(change, lead), options, oauth=True)
    (blocks,) = _system_messages(body)
    assert blocks == [_removal("Read"), _removal("mine")]


@pytest.mark.parametrize("lead_tools", [None, []])
def test_without_tools_on_the_leading_message_changes_are_not_native(
    lead_tools: list[Tool] | None,
) -> None:
    change = SystemMessage(tools_added=[_tool("d")])
    body = build_request(_model(), _context(change, lead_tools), StreamOptions())
    assert all(
        b["type"] not in ("tool_removal", "tool_addition")
        for blocks in _system_messages(body)
        for b in blocks
    )
    assert [t["name"] for t in body["tools"]] == ["d"]
