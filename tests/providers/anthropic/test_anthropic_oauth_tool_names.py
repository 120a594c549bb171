"""OAuth mode: a tool name the model sends back is mapped to the caller's spelling (pi-mono).

In OAuth mode the request spells tools as Claude Code does (``Read``, ``Bash``); the model may
answer a tool call in any case. :func:`from_claude_code_name` maps the name back to the tool the
context declares that matches case-insensitively (current tools first, then any tool the
transcript ever declared), and keeps the name when none matches (pi-mono ``fromClaudeCodeName``).
Names are built at run time: equal strings, never the same object as the declared names.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_anthropic.messages._decode import Decoder
from pi_sdk_anthropic.messages._tools import from_claude_code_name, to_claude_code_name

from pi_sdk import Context, Model, SystemMessage, Tool, UserMessage
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="claude-unit", api="anthropic-messages", provider="anthropic")
SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def _name(*parts: str) -> str:
    return "".join(parts)  # a new string object, equal to the literal


def _tool(name: str) -> Tool:
    return Tool(name=name, description=f"the {name} tool", parameters=SCHEMA)


def _transcript() -> Context:
    """``read_file`` and ``BASH``; later ``BASH`` withdrawn, ``Bash`` and ``MyTool`` added."""
    first = SystemMessage(content="one", tools_added=[_tool("read_file"), _tool("BASH")])
    later = SystemMessage(
        content="two",
        tools_removed=[{"name": "BASH"}],
        tools_added=[_tool("Bash"), _tool("MyTool")],
    )
    return Context(messages=[first, UserMessage(content="hi"), later])


@pytest.mark.parametrize(
    ("sent", "mapped"),
    [
        (_name("READ", "_FILE"), "read_file"),  # a current tool, any case
        (_name("my", "tool"), "MyTool"),  # the last current tool
        (_name("ba", "sh"), "Bash"),  # the current tool before the withdrawn BASH
        (_name("Re", "ad"), "Read"),  # no tool of that name: kept as sent
        (_name("unknown", "_tool"), "unknown_tool"),
    ],
)
def test_a_tool_name_maps_back_to_the_declared_spelling(sent: str, mapped: str) -> None:
    assert from_claude_code_name(sent, _transcript()) == mapped


def test_a_withdrawn_tool_still_maps_back_and_the_shorthand_counts() -> None:
    first = SystemMessage(content="one", tools_added=[_tool("Grep_Files"), _tool("keep")])
    later = SystemMessage(content="two", tools_removed=[{"name": "Grep_Files"}])
    withdrawn = Context(messages=[first, UserMessage(content="hi"), later])
    assert from_claude_code_name(_name("grep_", "files"), withdrawn) == "Grep_Files"
    assert from_claude_code_name(_name("KE", "EP"), withdrawn) == "keep"
    shorthand = Context(tools=[_tool("web_lookup"), _tool("Notes")], messages=[])
    assert from_claude_code_name(_name("NOTES"), shorthand) == "Notes"
    assert from_claude_code_name(_name("WEB_", "lookup"), shorthand) == "web_lookup"


def test_with_no_tools_every_name_is_kept() -> None:
    empty = Context(messages=[UserMessage(content="hi")])
    for sent in (_name("Ba", "sh"), _name("x")):
        assert from_claude_code_name(sent, empty) == sent


def test_claude_code_spelling_is_used_only_for_its_own_tools() -> None:
    assert to_claude_code_name(_name("bash")) == "Bash"
    assert to_claude_code_name(_name("todo", "write")) == "TodoWrite"
    assert to_claude_code_name(_name("my_", "tool")) == "my_tool"


@pytest.mark.parametrize("oauth", [True, False])
def test_the_decoder_maps_a_tool_call_s_name_only_in_oauth_mode(oauth: bool) -> None:
    decoder = Decoder(MessageBuilder(MODEL), _transcript(), oauth=oauth)
    block = {"type": "tool_use", "id": "toolu_1", "name": _name("my", "TOOL"), "input": {}}
    events = decoder.feed({"type": "content_block_start", "index": 0, "content_block": block})
    [start] = events
    assert start.type == "toolcall_start"
    call = start.partial.content[0]
    assert call.name == ("MyTool" if oauth else "myTOOL")
