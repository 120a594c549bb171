"""System messages in the transcript helpers and estimates (``pi_sdk/_wire/transcript.py``,
``pi_sdk/_wire/estimate.py``, ``pi_sdk/_stream/usage_estimate.py``), and the install hint of
a provider the first-party packages know (``pi_sdk/_wire/first_party.py``).

A system message counts its whole prompt (text and sections) and the definitions of the tools
it adds, never the ones it removes; the declared tools are every definition the transcript's
system messages give, the last one of a name winning in first-declaration order.
"""

from __future__ import annotations

import json

import pi_sdk
from pi_sdk._stream.usage_estimate import context_chars
from pi_sdk._wire.estimate import estimate_tokens
from pi_sdk._wire.first_party import install_hint
from pi_sdk._wire.transcript import declared_tools
from pi_sdk.types import SystemMessage, Tool, ToolReference

PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}


def _tool(name: str, description: str = "d") -> Tool:
    return Tool(name=name, description=description, parameters=PARAMS)


def _tool_chars(*tools: Tool) -> int:
    return sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in tools)


def test_declared_tools_last_definition_wins_in_first_declaration_order():
    messages = [
        SystemMessage(content="base", tools_added=[_tool("a", "first a"), _tool("b")]),
        pi_sdk.UserMessage(content="hi"),
        SystemMessage(tools_added=[_tool("c"), _tool("a", "second a")]),
        SystemMessage(tools_removed=[ToolReference(name="b")]),  # removal: still declared
    ]
    tools = declared_tools(messages)
    assert [(t.name, t.description) for t in tools] == [("a", "second a"), ("b", "d"), ("c", "d")]
    assert declared_tools([pi_sdk.UserMessage(content="no system")]) == []


def test_a_system_message_counts_its_prompt_and_the_tools_it_adds():
    added = [_tool("lookup", "Looks things up.")]
    message = SystemMessage(
        content="Be brief.",
        sections={"style": "Plain words.", "gone": None},
        tools_added=added,
        tools_removed=[ToolReference(name="old-tool-with-a-long-name")],
    )
    prompt = "Be brief.\n\nPlain words."
    assert message.prompt_text == prompt
    chars = len(prompt) + _tool_chars(*added)
    assert estimate_tokens(message) == -(-chars // 4) + 4  # ceil(chars / 4) + framing
    bare = SystemMessage(content="x" * 8)
    assert estimate_tokens(bare) == 2 + 4
    context = pi_sdk.Context(
        system_prompt="sys",
        messages=[message, pi_sdk.UserMessage(content="hello")],
        tools=[_tool("t")],
    )
    assert context_chars(context) == 3 + chars + 5 + _tool_chars(_tool("t"))


def test_the_install_hint_names_every_first_party_package_of_a_provider():
    assert install_hint("anthropic") == (
        "; its models come with pi-sdk-anthropic: pip install pi-sdk-anthropic"
    )
    assert install_hint("opencode") == (
        "; its models come with pi-sdk-anthropic and pi-sdk-google and pi-sdk-openai:"
        " pip install pi-sdk-anthropic pi-sdk-google pi-sdk-openai"
    )
    assert install_hint("no-such-provider") == ""
