"""Lean wire objects: shared bookkeeping, the same JSON, nothing lost (issue 16, item 3)."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import pi_sdk
import pi_sdk._wire.wire_model
from pi_sdk._agent.messages import agent_message_from_dict
from pi_sdk._wire import lean
from pi_sdk._wire.lean import copy_with
from pi_sdk.options import StructuredOutput
from pi_sdk.provider import transform_messages

SIGNATURE = "EqQBCkgIARABGAIiQL2f+" + "x" * 300 + "=="

ASSISTANT: dict[str, Any] = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "hmm", "thinkingSignature": SIGNATURE, "vendorX": [1]},
        {"type": "text", "text": "Checking.", "textSignature": '{"v":1,"id":"msg_1"}'},
        {
            "type": "toolCall",
            "id": "toolu_1",
            "name": "get_weather",
            "arguments": {"city": "Paris", "nested": {"deep": [1, 2.5, None]}},
            "thoughtSignature": "c2lnbmF0dXJl",
        },
    ],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "claude-sonnet-4-5",
    "responseId": "msg_01",
    "usage": {
        "input": 1200,
        "output": 40,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 1240,
        "cost": {"input": 0.25, "output": 0.5, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.75},
        "reasoningTokens": 12,
    },
    "stopReason": "toolUse",
    "timestamp": 1764640001000,
    "newerPiField": {"kept": True},
}
TOOL_RESULT: dict[str, Any] = {
    "role": "toolResult",
    "toolCallId": "toolu_1",
    "toolName": "get_weather",
    "content": [{"type": "text", "text": "sunny"}],
    "isError": False,
    "timestamp": 1764640002000,
}
USER: dict[str, Any] = {"role": "user", "content": "weather?", "timestamp": 1764640000000}


def load(data: dict[str, Any]) -> Any:
    return agent_message_from_dict(copy.deepcopy(data))


@pytest.fixture
def not_lean(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Switch the sharing off (what every wire object did before): call it to do so."""
    return lambda: monkeypatch.setattr(pi_sdk._wire.wire_model, "compact", lambda model: None)


@pytest.mark.parametrize("data", [USER, ASSISTANT, TOOL_RESULT])
def test_json_is_byte_identical_to_the_input_and_to_the_layout_without_sharing(
    data: dict[str, Any], not_lean: Callable[[], None]
):
    lean = load(data)
    assert json.dumps(lean.model_dump(mode="json")) == json.dumps(data)
    not_lean()
    full = load(data)
    assert full.__pydantic_extra__ is not None  # the sharing is really off here
    assert lean.model_dump_json() == full.model_dump_json()
    assert lean == full


def test_unknown_fields_and_signatures_are_kept_exactly():
    message = load(ASSISTANT)
    assert message.model_extra == {"newerPiField": {"kept": True}}
    assert message.usage.model_extra == {"reasoningTokens": 12}
    thinking, text, call = message.content
    assert thinking.thinking_signature == SIGNATURE and thinking.model_extra == {"vendorX": [1]}
    assert text.text_signature == '{"v":1,"id":"msg_1"}'
    assert call.thought_signature == "c2lnbmF0dXJl"
    again = pi_sdk.AssistantMessage.model_validate_json(message.model_dump_json())
    assert again == message and again.model_dump_json() == message.model_dump_json()
    assert pickle.loads(pickle.dumps(message)) == message


def test_equal_messages_share_their_bookkeeping():
    first, second = load(ASSISTANT), load(ASSISTANT)
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.usage.cost.__pydantic_fields_set__ is second.usage.cost.__pydantic_fields_set__
    assert first.usage.cost.__pydantic_extra__ is None  # no unknown field: no dict
    assert first.api is second.api  # identifiers interned


def test_setting_a_field_on_one_instance_leaves_the_others_alone():
    first, second = load(TOOL_RESULT), load(TOOL_RESULT)
    first.details = {"rows": 3}
    first.is_error = True  # already given: nothing to record
    assert "details" in first.model_fields_set and "details" not in second.model_fields_set
    assert "details" not in second.model_dump(exclude_unset=True)
    assert first.model_dump(exclude_unset=True)["details"] == {"rows": 3}
    assert second.is_error is False and second.details is None


def test_an_unknown_attribute_set_later_is_kept_and_serialized():
    first, second = load(TOOL_RESULT), load(TOOL_RESULT)
    first.vendor_note = "late"
    assert first.model_extra == {"vendor_note": "late"} and second.model_extra is None
    assert json.loads(first.model_dump_json())["vendor_note"] == "late"
    assert "vendor_note" in first.model_fields_set and first != second
    del first.vendor_note
    assert first == second and first.model_fields_set == second.model_fields_set | {"vendor_note"}


def test_copies_and_streamed_appends_do_not_write_through():
    original = pi_sdk.TextContent.model_validate({"type": "text"})
    twin = pi_sdk.TextContent.model_validate({"type": "text"})
    changed = original.model_copy(update={"text_signature": "sig"})
    assert changed.model_fields_set == {"type", "text_signature"}
    deep = original.model_copy(deep=True)
    deep.append("streamed")
    assert deep.text == "streamed" and "text" in deep.model_fields_set
    original.append("more")
    assert original.model_fields_set == {"type", "text"}
    assert twin.model_fields_set == {"type"} and twin.text == ""


def test_a_typed_answer_stays_with_its_message_and_off_the_wire():
    message, plain = load(ASSISTANT), load(ASSISTANT)
    answer = StructuredOutput(value={"a": 1}, raw='{"a": 1}')
    message.set_output(answer)
    assert message.output is answer and plain.output is None
    assert message.model_copy().output is answer
    assert message.model_dump_json() == plain.model_dump_json()
    message.set_output(None)
    assert message.output is None and message == plain


def test_a_streamed_reply_is_lean_when_it_ends():
    provider = pi_sdk.testing.ScriptedProvider(["one", "two"])
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
    first = pi_sdk.complete_sync(provider.model, context)
    second = pi_sdk.complete_sync(provider.model, context)
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.usage.__pydantic_fields_set__ is second.usage.__pydantic_fields_set__
    assert first.usage.cost.__pydantic_fields_set__ is second.usage.cost.__pydantic_fields_set__
    assert first.content[0].__pydantic_fields_set__ is second.content[0].__pydantic_fields_set__
    assert first.content[0].__pydantic_extra__ is None and first.text == "one"


def allocated(build: Callable[[], object]) -> int:
    build()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        size = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del kept
    return size


def test_a_twenty_message_agent_takes_about_what_plain_dicts_take(
    not_lean: Callable[[], None],
):
    turns = [ASSISTANT, TOOL_RESULT] * 9
    text = json.dumps([USER, *turns, ASSISTANT])

    def agent() -> pi_sdk.Agent:
        return pi_sdk.Agent(messages=[agent_message_from_dict(d) for d in json.loads(text)])

    lean = allocated(agent)
    dicts = allocated(lambda: json.loads(text))
    not_lean()
    full = allocated(agent)
    print(f"lean {lean} B, plain dicts {dicts} B, without the sharing {full} B")
    assert lean <= 1.3 * dicts  # measured 1.15x (2.2x without the sharing)
    assert lean <= 0.6 * full  # measured 0.53x


def test_changing_a_shared_fields_set_in_place_is_refused():
    first, second = load(USER), load(USER)
    with pytest.raises(TypeError, match="shared"):
        first.model_fields_set.add("extra_name")
    with pytest.raises(TypeError, match="shared"):
        first.model_fields_set |= {"extra_name"}
    assert "extra_name" not in second.model_fields_set
    first.timestamp = 5  # assignment still records (the name is already there)
    assert set(first.model_fields_set) == set(second.model_fields_set)


def fields_state(model: Any) -> tuple[Any, ...]:
    """Everything a copy must agree on: JSON, equality, fields set, extras, private dict."""
    return (
        model.model_dump_json(),
        set(model.model_fields_set),
        model.model_extra or {},
        model.__pydantic_private__,
    )


@pytest.mark.parametrize(
    ("data", "update"),
    [
        (USER, {"content": "changed"}),
        (ASSISTANT, {"content": [], "stop_reason": "stop"}),
        (ASSISTANT, {"error_message": "newly set"}),
        (TOOL_RESULT, {"tool_call_id": "call_2", "tool_name": "other"}),
    ],
)
def test_copy_with_gives_what_model_copy_gives_and_stays_lean(
    data: dict[str, Any], update: dict[str, Any]
):
    original = load(data)
    if isinstance(original, pi_sdk.AssistantMessage):
        original.set_output(StructuredOutput(value={"a": 1}, raw='{"a": 1}'))
    copied = copy_with(original, update)
    assert copied is not original and copied == original.model_copy(update=update)
    assert fields_state(copied) == fields_state(original.model_copy(update=update))
    twin = copy_with(load(data), update)
    assert copied.__pydantic_fields_set__ is twin.__pydantic_fields_set__  # shared, as if new
    assert copied.__pydantic_extra__ is not original.__pydantic_extra__ or not copied.model_extra
    if "tool_name" in update:
        assert copied.tool_name is sys.intern("other")  # identifiers interned, as if new


def test_a_copy_and_its_original_change_independently():
    original = load(TOOL_RESULT)
    original.details = {"rows": 3}  # the original now owns a plain fields set
    copied = copy_with(original, {"tool_call_id": "call_2"})
    original.vendor_note = "late"
    copied.is_error = True
    assert copied.model_extra is None and original.model_extra == {"vendor_note": "late"}
    assert "vendor_note" not in copied.model_fields_set and original.is_error is False
    copied.extra_note = "only here"
    assert "extra_note" not in original.model_fields_set and "extra_note" not in (
        original.model_extra or {}
    )


def test_a_transformed_history_is_lean_and_as_built_by_the_constructors():
    turn = load(ASSISTANT)
    turn.content.append(pi_sdk.TextContent(text="plain"))
    foreign = pi_sdk.Model(id="deepseek-chat", api="openai-completions", provider="deepseek")
    history = [load(USER), turn, load(TOOL_RESULT)]
    out = transform_messages(history, foreign, foreign_reasoning="text")  # thinking made text
    blocks = out[1].content  # type: ignore[union-attr]
    expected = [
        pi_sdk.TextContent(text="hmm"),
        pi_sdk.TextContent(text="Checking."),
        turn.content[2].model_copy(update={"thought_signature": None}),
        pi_sdk.TextContent(text="plain"),
    ]
    assert [fields_state(b) for b in blocks] == [fields_state(b) for b in expected]
    for made, built in zip(blocks[:2], expected[:2], strict=True):
        assert made.__pydantic_fields_set__ is built.__pydantic_fields_set__
        assert made.__pydantic_extra__ is None
    assert blocks[3] is turn.content[3]  # a plain foreign text block is passed through
    assert json.loads(out[1].model_dump_json())["newerPiField"] == {"kept": True}


def test_past_the_cap_on_shared_name_sets_a_new_set_stays_the_instance_s_own(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(lean, "_shared", {})
    monkeypatch.setattr(lean, "_CAP", 1)  # room for one distinct set of names
    first, twin = pi_sdk.TextContent(text="a"), pi_sdk.TextContent(text="b")
    assert type(first.__pydantic_fields_set__) is lean.SharedFieldNames
    assert first.__pydantic_fields_set__ is twin.__pydantic_fields_set__
    image = pi_sdk.ImageContent(data="aGk=", mime_type="image/png")
    other = pi_sdk.ImageContent(data="aGk=", mime_type="image/png")
    assert type(image.__pydantic_fields_set__) is set  # past the cap: not shared, not refused
    assert image.__pydantic_fields_set__ is not other.__pydantic_fields_set__
    assert image.model_fields_set == {"data", "mime_type"} and image == other
    assert list(lean._shared) == [frozenset({"text"})]


@pytest.mark.parametrize(("kept_before", "shared"), [(4094, True), (4095, True), (4096, False)])
def test_4096_distinct_name_sets_are_shared_and_the_next_one_is_not(
    monkeypatch: pytest.MonkeyPatch, kept_before: int, shared: bool
):
    filler = {frozenset({f"f{n}"}): lean.SharedFieldNames({f"f{n}"}) for n in range(kept_before)}
    monkeypatch.setattr(lean, "_shared", filler)
    first, twin = pi_sdk.TextContent(text="a"), pi_sdk.TextContent(text="b")
    kind = lean.SharedFieldNames if shared else set
    assert type(first.__pydantic_fields_set__) is kind
    assert (first.__pydantic_fields_set__ is twin.__pydantic_fields_set__) is shared
    assert len(lean._shared) == kept_before + shared


@pytest.mark.parametrize(("length", "interned"), [(1, True), (64, True), (65, False)])
def test_identifiers_up_to_64_characters_are_interned_longer_ones_are_text(
    length: int, interned: bool
):
    """Built and copied alike: an identifier field holds the interned string, unless longer
    than an identifier is (then it is text, kept as given)."""
    canonical = sys.intern("".join(["m"] * length))  # the interned one, made first
    model = "".join(["m"] * length)  # an equal str, another object
    message = pi_sdk.AssistantMessage(api="a", provider="p", model=model, timestamp=1)
    assert message.model == model and (message.model is canonical) is interned
    copied = copy_with(message.model_copy(update={"model": "x"}), {"model": "".join(model)})
    assert copied.model == model and (copied.model is canonical) is interned


def test_a_tool_call_id_is_stored_once_for_the_call_and_its_result():
    """Loaded from JSON, a call's ``id`` and its result's ``tool_call_id`` are one string;
    equality, copies, assignment and the JSON are as with strings of their own."""
    call, result = load(ASSISTANT).content[2], load(TOOL_RESULT)
    assert result.tool_call_id == call.id == "toolu_1" and result.tool_call_id is call.id
    renamed = copy_with(result, {"tool_call_id": "".join(["toolu_", "1"])})
    assert renamed.tool_call_id is call.id and renamed == result
    assert result.model_dump(exclude_unset=True) == TOOL_RESULT
    assert copy.deepcopy(result) == result == result.model_copy() == load(TOOL_RESULT)
    result.tool_call_id = "toolu_2"
    assert call.id == "toolu_1" and result != renamed and "tool_call_id" in result.model_fields_set
    assert json.loads(result.model_dump_json())["toolCallId"] == "toolu_2"
    assert load(ASSISTANT).model_dump(mode="json", exclude_unset=True) == ASSISTANT
