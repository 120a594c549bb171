import json

import pytest
from _support.messages import opaque_blocks
from pydantic import TypeAdapter, ValidationError

import pi_sdk
from pi_sdk import AssistantMessage, Context, TextContent, ThinkingContent, UserMessage

MESSAGES = TypeAdapter(list[pi_sdk.Message])


def _assistant() -> AssistantMessage:
    return AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude-x",
        content=opaque_blocks(),
        usage=pi_sdk.Usage(input=10, output=5, cache_read=3, cache_write=2, total_tokens=20),
        stop_reason="toolUse",
        timestamp=1_700_000_000_123,
    )


def test_assistant_message_json_uses_pi_mono_names():
    data = json.loads(_assistant().model_dump_json())
    assert data["role"] == "assistant"
    assert data["stopReason"] == "toolUse"
    assert "errorMessage" not in data  # None fields are omitted, like pi-mono's undefined
    assert data["timestamp"] == 1_700_000_000_123
    assert data["usage"]["cacheRead"] == 3 and data["usage"]["totalTokens"] == 20
    assert data["content"][0] == {
        "type": "thinking",
        "thinking": "think",
        "thinkingSignature": "EqQBCkYI+/BxgCKkA=",
    }
    assert data["content"][1]["redacted"] is True
    assert data["content"][2]["textSignature"] == '{"v":1,"id":"msg_1"}'
    assert data["content"][3]["type"] == "toolCall"


def test_round_trip_is_exact_including_opaque_and_unknown_fields():
    original = _assistant()
    raw = original.model_dump_json()
    loaded = AssistantMessage.model_validate_json(raw)
    assert loaded == original
    assert loaded.model_dump_json() == raw
    # Fields a newer pi-mono or a plugin adds survive a round trip.
    data = json.loads(raw)
    data["responseId"] = "resp_9"
    data["content"][0]["futureField"] = {"x": 1}
    again = AssistantMessage.model_validate(data)
    assert json.loads(again.model_dump_json())["responseId"] == "resp_9"
    assert json.loads(again.model_dump_json())["content"][0]["futureField"] == {"x": 1}


def test_message_union_discriminates_by_role_and_accepts_pi_json():
    pi_json = [
        {"role": "user", "content": "hello", "timestamp": 1},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            ],
            "timestamp": 2,
        },
        json.loads(_assistant().model_dump_json()),
        {
            "role": "toolResult",
            "toolCallId": "toolu_01",
            "toolName": "get_weather",
            "content": [{"type": "text", "text": "file"}],
            "isError": False,
            "details": {"bytes": 4},
            "timestamp": 3,
        },
    ]
    messages = MESSAGES.validate_python(pi_json)
    assert [type(m) for m in messages] == [
        UserMessage,
        UserMessage,
        AssistantMessage,
        pi_sdk.ToolResultMessage,
    ]
    assert isinstance(messages[1].content[1], pi_sdk.ImageContent)
    assert messages[1].content[1].mime_type == "image/png"
    assert MESSAGES.dump_python(messages, mode="json") == pi_json


def test_invalid_messages_are_rejected_with_a_clear_error():
    with pytest.raises(ValidationError):
        MESSAGES.validate_python([{"role": "robot", "content": "x"}])
    with pytest.raises(ValidationError):
        AssistantMessage.model_validate(
            {
                "role": "assistant",
                "content": [],
                "stopReason": "weird",
                "api": "a",
                "provider": "p",
                "model": "m",
            }
        )


def test_snake_case_attributes_and_helpers():
    message = _assistant()
    assert message.stop_reason == "toolUse"
    assert message.text == "calling"
    assert [c.name for c in message.tool_calls] == ["get_weather"]
    usage = pi_sdk.Usage(input=1, output=2, cache_read=3, cache_write=4)
    usage.update_total()
    assert usage.total_tokens == 10


def test_model_and_context_round_trip():
    model = pi_sdk.Model.model_validate(
        {
            "id": "m",
            "name": "M",
            "api": "openai-completions",
            "provider": "groq",
            "baseUrl": "https://x/v1",
            "reasoning": True,
            "input": ["text", "image"],
            "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 0},
            "contextWindow": 1000,
            "maxTokens": 100,
            "compat": {"supportsStore": False},
        }
    )
    assert model.base_url == "https://x/v1" and model.cost.cache_read == 0.1
    assert pi_sdk.Model.model_validate_json(model.model_dump_json()) == model
    ctx = Context(system_prompt="s", messages=[UserMessage(content="u")])
    assert json.loads(ctx.model_dump_json())["systemPrompt"] == "s"
    assert Context.model_validate_json(ctx.model_dump_json()) == ctx


def test_raise_for_error():
    from pi_sdk import AbortedError, AssistantError

    ok = _assistant()
    assert ok.raise_for_error() is ok
    bad = _assistant().model_copy(update={"stop_reason": "error", "error_message": "429 slow down"})
    with pytest.raises(AssistantError, match="429 slow down") as info:
        bad.raise_for_error()
    assert info.value.assistant_message is bad
    with pytest.raises(AbortedError):
        _assistant().model_copy(update={"stop_reason": "aborted"}).raise_for_error()


# --- appending streamed text -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "field"), [(TextContent(), "text"), (ThinkingContent(), "thinking")]
)
def test_append_builds_the_text_from_many_pieces(block: TextContent | ThinkingContent, field: str):
    pieces = [f"w{i} é{'🙂' if i % 97 == 0 else ''}\n" for i in range(20_000)]
    message = AssistantMessage(api="x", provider="x", model="x", content=[block])
    seen_lengths = 0
    for piece in pieces:
        block.append(piece)
        # The partial is exact after every delta (no deferred join).
        seen_lengths += len(piece)
        assert len(getattr(message.content[0], field)) == seen_lengths
    assert getattr(block, field) == "".join(pieces)
    assert field in block.model_fields_set
    dumped = message.model_dump(mode="json")["content"][0]
    assert dumped[field] == "".join(pieces)


def test_append_rejects_a_non_string_and_keeps_the_text():
    block = TextContent(text="kept")
    with pytest.raises(TypeError, match="text piece must be a str, got bytes"):
        block.append(b"x")  # type: ignore[arg-type]
    assert block.text == "kept"
    thinking = ThinkingContent(thinking="kept")
    with pytest.raises(TypeError, match="thinking piece must be a str, got NoneType"):
        thinking.append(None)  # type: ignore[arg-type]
    assert thinking.thinking == "kept" and thinking.model_dump()["thinking"] == "kept"


def test_append_leaves_other_references_untouched():
    block = TextContent(text="abc")
    before = block.text
    copy = block.model_copy()
    block.append("def")
    assert (before, copy.text, block.text) == ("abc", "abc", "abcdef")


def test_append_joins_a_surrogate_pair_split_across_deltas():
    import json as _json

    block = TextContent(text="smile ")
    block.append(_json.loads('"\\ud83d"'))  # high half alone, as a vendor may stream it
    block.append(_json.loads('"\\ude00 ok"'))
    assert block.text == "smile \U0001f600 ok"
    block.model_dump_json()  # valid Unicode again: serializes
    thinking = ThinkingContent(thinking="\ud83d")
    thinking.append("\ude00")
    assert thinking.thinking == "\U0001f600"
    lone = TextContent(text="a")
    lone.append("\ude00")  # a lone low surrogate with nothing to pair stays as it was
    assert lone.text == "a\ude00"


@pytest.mark.parametrize(
    ("held", "piece", "joined"),
    [
        ("a\ud800", "\udc00b", "a\U00010000b"),  # the lowest pair
        ("a\udbff", "\udfffb", "a\U0010ffffb"),  # the highest pair
        ("a\ud7ff", "\udc00", "a\ud7ff\udc00"),  # just below the high halves: not a half
        ("a\udc00", "\udc00", "a\udc00\udc00"),  # a low half cannot open a pair
        ("a\ud800", "\ue000", "a\ud800\ue000"),  # just above the low halves: not a half
        ("a\ud800", "\ud800", "a\ud800\ud800"),  # a high half cannot close one
        ("", "\udc00", "\udc00"),
        ("a\ud800", "", "a\ud800"),
    ],
)
def test_append_joins_exactly_a_high_half_then_a_low_half(held: str, piece: str, joined: str):
    text, thinking = TextContent(text=held), ThinkingContent(thinking=held)
    text.append(piece)
    thinking.append(piece)
    assert text.text == joined and thinking.thinking == joined


def test_append_keeps_the_json_field_order():
    block = ThinkingContent(thinking="", thinking_signature="sig")
    block.append("more")
    assert list(json.loads(block.model_dump_json())) == ["type", "thinking", "thinkingSignature"]
    again = ThinkingContent.model_validate_json(block.model_dump_json())
    assert again.model_dump_json() == block.model_dump_json()


def test_text_of_user_and_tool_result_messages():
    png = pi_sdk.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    assert UserMessage(content="plain").text == "plain"
    assert UserMessage(content=[TextContent(text="a"), png, TextContent(text="b")]).text == "ab"
    result = pi_sdk.ToolResultMessage(
        tool_call_id="t", tool_name="f", content=[TextContent(text="42"), png]
    )
    assert result.text == "42"
