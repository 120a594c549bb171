"""``convert_messages`` and ``request_grammar`` with and without what the caller already has.

Each takes a pre-resolved ``compat`` (and ``convert_messages`` the context's ``parts``): given,
it is used as it is, not resolved again from the model; not given, it is resolved from the
model. Each operand of the fallback alone: a given compat that differs from the model's, and
none with a model whose own compat decides.
"""

from __future__ import annotations

from pi_sdk_openai.completions import convert_messages, request_grammar
from pi_sdk_openai.completions._compat import CompletionsCompat
from pi_sdk_openai.completions._system import read_parts

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

PLAIN = Model(id="m", api="openai-completions", provider="openai", base_url="http://h/v1")
NAMED = PLAIN.model_copy(update={"compat": {"requiresToolResultName": True}})
GRAMMAR = PLAIN.model_copy(update={"compat": {"supportsOpenAIGrammarTools": True}})
DATE = Tool(
    name="set_date",
    description="Set the date",
    parameters={
        "type": "object",
        "properties": {"date": {"type": "string"}},
        "required": ["date"],
    },
    constrained_sampling={"type": "grammar", "variants": {"openai_regex": r"^\d+$"}},
)


def _context(question: str = "go") -> Context:
    turn = AssistantMessage(
        content=[ToolCall(id="call_1", name="f", arguments={})],
        api="openai-completions",
        provider="openai",
        model="m",
        stop_reason="toolUse",
    )
    result = ToolResultMessage(
        tool_call_id="call_1", tool_name="f", content=[TextContent(text="ok")]
    )
    return Context(messages=[UserMessage(content=question), turn, result], tools=[DATE])


def _tool_entry(messages: list[dict[str, object]]) -> dict[str, object]:
    (entry,) = [m for m in messages if m["role"] == "tool"]
    return entry


def test_a_given_compat_decides_not_the_models() -> None:
    named = CompletionsCompat(requires_tool_result_name=True)
    assert _tool_entry(convert_messages(PLAIN, _context(), named)) == {
        "role": "tool", "content": "ok", "tool_call_id": "call_1", "name": "f",
    }  # fmt: skip
    assert _tool_entry(convert_messages(NAMED, _context(), CompletionsCompat())) == {
        "role": "tool", "content": "ok", "tool_call_id": "call_1",
    }  # fmt: skip


def test_without_a_compat_the_models_own_decides() -> None:
    assert _tool_entry(convert_messages(NAMED, _context()))["name"] == "f"
    assert "name" not in _tool_entry(convert_messages(PLAIN, _context()))


def test_given_parts_are_the_messages_sent() -> None:
    compat = CompletionsCompat()
    parts = read_parts(PLAIN, _context("read before"), compat)
    messages = convert_messages(PLAIN, _context("not this"), compat, parts=parts)
    assert messages[0] == {"role": "user", "content": "read before"}
    assert convert_messages(PLAIN, _context("this"))[0] == {"role": "user", "content": "this"}


def test_request_grammar_by_the_given_compat_else_the_models() -> None:
    on = CompletionsCompat(supports_openai_grammar_tools=True)
    assert request_grammar(PLAIN, _context(), on) == {"set_date": "date"}
    assert request_grammar(GRAMMAR, _context(), CompletionsCompat()) == {}
    assert request_grammar(GRAMMAR, _context()) == {"set_date": "date"}
    assert request_grammar(PLAIN, _context()) == {}
