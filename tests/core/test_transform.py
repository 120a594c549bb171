"""transform_messages: each history shape of issue 7 ("Done when"), plus pi-spec §5 rules."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from _support.messages import assistant
from _support.migration import DEEPSEEK
from _support.strings import built
from pi_sdk_anthropic.messages import normalize_tool_call_id as anthropic_ids
from pi_sdk_google import normalize_tool_call_id as google_ids
from pi_sdk_openai.completions import normalize_tool_call_id as normalize_completions_tool_call_id
from pi_sdk_openai.responses import normalize_tool_call_id as normalize_responses_tool_call_id
from pydantic import TypeAdapter

import pi_sdk
from pi_sdk import Message, Model, ThinkingContent, ToolCall, UserMessage
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._wire import transform as transform_module
from pi_sdk._wire.ids import ToolCallIdNormalizer
from pi_sdk._wire.transform import IMAGE_PLACEHOLDER_TEXT, NO_RESULT_TEXT
from pi_sdk.provider import is_same_source, signature_origin, transform_messages

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

CLAUDE = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
GPT = pi_sdk.get_model("openai", "gpt-5")
GEMINI = pi_sdk.get_model("google", "gemini-2.5-flash")
CHAT = Model(
    id="gpt-4o-mini",
    api="openai-completions",
    provider="openai",
    base_url="https://api.openai.com/v1",
    input=["text"],
)

ADAPTER_IDS: dict[str, ToolCallIdNormalizer] = {
    "anthropic-messages": anthropic_ids,
    "openai-responses": normalize_responses_tool_call_id,
    "openai-completions": normalize_completions_tool_call_id,
    "google-generative-ai": google_ids,
}
"""The normalizer each target's adapter passes to ``transform_messages``."""


def transform(messages: list[Message], target: Model, **kwargs: Any) -> list[Message]:
    """``transform_messages`` as the target's adapter calls it (with its id normalizer)."""
    return transform_messages(
        messages, target, normalize_tool_call_id=ADAPTER_IDS[target.api], **kwargs
    )


REASONING_ITEM = json.dumps(
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB..."}
)


def result(
    call_id: str, name: str = "get_weather", text: str = "sunny", **kw: Any
) -> pi_sdk.ToolResultMessage:
    return pi_sdk.ToolResultMessage(
        tool_call_id=call_id,
        tool_name=name,
        content=[pi_sdk.TextContent(text=text)],
        timestamp=2000,
        **kw,
    )


def dump(messages: list[Message]) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(m.model_dump(mode="json"))) for m in messages]


def calls(messages: list[Message]) -> list[ToolCall]:
    return [c for m in messages if isinstance(m, pi_sdk.AssistantMessage) for c in m.tool_calls]


def results(messages: list[Message]) -> list[pi_sdk.ToolResultMessage]:
    return [m for m in messages if isinstance(m, pi_sdk.ToolResultMessage)]


# --- Done when: thinking + tool call from OpenAI Responses sent to Anthropic -------------------


def responses_turn() -> list[Message]:
    return [
        UserMessage(content="weather in Paris?", timestamp=1),
        assistant(
            GPT,
            ThinkingContent(thinking="User wants weather.", thinking_signature=REASONING_ITEM),
            pi_sdk.TextContent(text="Checking.", text_signature='{"v":1,"id":"msg_1"}'),
            ToolCall(
                id="call_AbC123|fc_0123456789abcdef",
                name="get_weather",
                arguments={"city": "Paris"},
            ),
        ),
        result("call_AbC123|fc_0123456789abcdef"),
    ]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("text", [{"type": "text", "text": "User wants weather."}]),
        ("tagged", [{"type": "text", "text": "<thinking>\nUser wants weather.\n</thinking>"}]),
        ("drop", []),
    ],
)
@pytest.mark.parametrize("read", [str, built], ids=["literal", "read at run time"])
def test_responses_reasoning_and_pipe_ids_to_anthropic(
    policy: Any, expected: list[Any], read: Any
) -> None:
    history = responses_turn()
    out = transform(history, CLAUDE, foreign_reasoning=read(policy))
    turn = out[1]
    assert isinstance(turn, pi_sdk.AssistantMessage)
    blocks = [b.model_dump(mode="json") for b in turn.content]
    assert blocks[: len(expected)] == expected
    assert blocks[len(expected)] == {"type": "text", "text": "Checking."}  # textSignature dropped
    (call,) = turn.tool_calls
    assert ANTHROPIC_ID.match(call.id)
    assert "|" not in call.id and call.thought_signature is None
    assert [r.tool_call_id for r in results(out)] == [call.id]
    assert REASONING_ITEM not in json.dumps(dump(out))  # the foreign signature never leaves


# --- Done when: a 79-char id and another sharing its first 64 sent to Anthropic ----------------


def test_long_ids_sharing_a_prefix_stay_distinct_and_results_follow() -> None:
    base = "toolu_" + "x" * 58  # 64 characters
    long_a = base + "A" * 15  # 79 characters
    long_b = base + "B" * 3
    source = Model(id="other", api="openai-completions", provider="some-proxy")
    history: list[Message] = [
        UserMessage(content="go"),
        assistant(
            source,
            ToolCall(id=long_a, name="f", arguments={}),
            ToolCall(id=long_b, name="g", arguments={}),
        ),
        result(long_b, name="g", text="B"),
        result(long_a, name="f", text="A"),
    ]
    out = transform(history, CLAUDE)
    ids = [c.id for c in calls(out)]
    assert len(set(ids)) == 2 and all(ANTHROPIC_ID.match(i) for i in ids)
    by_id = {r.tool_call_id: r.content[0].text for r in results(out)}  # type: ignore[union-attr]
    assert by_id == {ids[0]: "A", ids[1]: "B"}
    assert out == transform(history, CLAUDE)  # deterministic (prompt caching)


# --- Done when: an empty tool-call id ----------------------------------------------------------


def test_empty_tool_call_id_replaced_deterministically() -> None:
    source = Model(id="m", api="openai-completions", provider="local")
    history: list[Message] = [
        UserMessage(content="go"),
        assistant(source, ToolCall(id="", name="f", arguments={"x": 1})),
        result("", name="f"),
        UserMessage(content="again"),
    ]
    for target in (CLAUDE, GPT, CHAT, GEMINI, source):
        out = transform(history, target)
        (call,) = calls(out)
        assert call.id.strip() and ANTHROPIC_ID.match(call.id)
        assert [r.tool_call_id for r in results(out)] == [call.id]  # matched, no synthetic result
        assert calls(transform(history, target))[0].id == call.id


# --- Done when: a Gemini turn with two id-less calls to the same function sent to OpenAI -------


@pytest.mark.parametrize("target", [GPT, CHAT])
def test_gemini_idless_parallel_calls_to_openai(target: Model) -> None:
    history: list[Message] = [
        UserMessage(content="weather in Paris and Rome?"),
        assistant(
            GEMINI,
            ToolCall(
                id="", name="get_weather", arguments={"city": "Paris"}, thought_signature="c2ln"
            ),
            ToolCall(id="", name="get_weather", arguments={"city": "Rome"}),
        ),
        result("", text="Paris: sunny"),
        result("", text="Rome: rain"),
    ]
    out = transform(history, target)
    first, second = calls(out)
    assert first.id != second.id
    assert first.thought_signature is None
    texts = {r.tool_call_id: r.content[0].text for r in results(out)}  # type: ignore[union-attr]
    assert texts == {first.id: "Paris: sunny", second.id: "Rome: rain"}
    limit = 40 if target.api == "openai-completions" else 64
    assert all(len(i) <= limit and "|" not in i for i in (first.id, second.id))


@pytest.mark.parametrize("read", [str, built], ids=["literal", "set at run time"])
def test_repeated_ids_matched_by_tool_name_first(read: Any) -> None:
    history: list[Message] = [
        UserMessage(content="x"),
        assistant(
            GEMINI, ToolCall(id="", name="a", arguments={}), ToolCall(id="", name="b", arguments={})
        ),
        result("", name="b", text="from b"),
        result("", name="a", text="from a"),
    ]
    for message in results(history):
        message.tool_name = read(message.tool_name)  # a program may rename after validation
    out = transform(history, CLAUDE)
    call_a, call_b = calls(out)
    texts = {r.tool_call_id: r.content[0].text for r in results(out)}  # type: ignore[union-attr]
    assert texts == {call_a.id: "from a", call_b.id: "from b"}


def test_id_reused_in_a_later_turn_gets_a_fresh_id() -> None:
    history: list[Message] = [
        UserMessage(content="x"),
        assistant(GEMINI, ToolCall(id="get_weather", name="get_weather", arguments={}), ts=1),
        result("get_weather", text="one"),
        assistant(GEMINI, ToolCall(id="get_weather", name="get_weather", arguments={}), ts=2),
        result("get_weather", text="two"),
    ]
    out = transform(history, CLAUDE)
    first, second = calls(out)
    assert first.id == "get_weather" and second.id != first.id
    assert [(r.tool_call_id, r.content[0].text) for r in results(out)] == [  # type: ignore[union-attr]
        (first.id, "one"),
        (second.id, "two"),
    ]


# --- Done when: a stream cut mid-thinking then replayed ----------------------------------------


def test_stream_cut_mid_thinking_is_not_replayed() -> None:
    cut = assistant(
        CLAUDE, ThinkingContent(thinking="Let me thi", thinking_signature=""), stop="aborted"
    )
    history: list[Message] = [UserMessage(content="q"), cut, UserMessage(content="q again")]
    out = transform(history, CLAUDE)
    assert [m.role for m in out] == ["user", "user"]
    assert '"thinkingSignature": ""' not in json.dumps(dump(out))


@pytest.mark.parametrize("signature", ["", "   ", None])
def test_unsigned_same_model_thinking_never_carries_an_empty_signature(
    signature: str | None,
) -> None:
    turn = assistant(
        CLAUDE,
        ThinkingContent(thinking="partial thought", thinking_signature=signature),
        ThinkingContent(thinking="  ", thinking_signature=signature),
        ThinkingContent(
            thinking="[Reasoning redacted]", thinking_signature=signature, redacted=True
        ),
        pi_sdk.TextContent(text="answer", text_signature=signature),
        stop="stop",
    )
    out = transform([UserMessage(content="q"), turn], CLAUDE)
    (kept,) = [m for m in out if isinstance(m, pi_sdk.AssistantMessage)]
    assert [b.model_dump(mode="json") for b in kept.content] == [
        {"type": "thinking", "thinking": "partial thought"},
        {"type": "text", "text": "answer"},
    ]


def test_same_source_keeps_signatures_and_ids_untouched() -> None:
    turn = assistant(
        CLAUDE,
        ThinkingContent(thinking="", thinking_signature="EqQBCkYI"),  # signed, empty text kept
        ThinkingContent(
            thinking="[Reasoning redacted]", thinking_signature="opaque", redacted=True
        ),
        ToolCall(id="toolu_01", name="f", arguments={}),
    )
    history: list[Message] = [UserMessage(content="q"), turn, result("toolu_01", name="f")]
    out = transform(history, CLAUDE)
    assert out[1] is turn and out[2] is history[2]


# --- Done when: a Bedrock- or proxy-minted signature sent to a different host ------------------


def test_proxy_minted_signature_not_replayed_to_another_host() -> None:
    proxy = CLAUDE.model_copy(update={"base_url": "https://llm-proxy.example.com/anthropic"})
    turn = assistant(
        proxy,
        ThinkingContent(thinking="reasoning", thinking_signature="sig-from-proxy"),
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="data", redacted=True),
        pi_sdk.TextContent(text="done"),
        stop="stop",
    )
    assert turn.signature_origin == "anthropic-messages@https://llm-proxy.example.com/anthropic"
    history: list[Message] = [UserMessage(content="q"), turn]
    to_vendor = transform(history, CLAUDE, foreign_reasoning="text")[1]
    assert isinstance(to_vendor, pi_sdk.AssistantMessage)
    assert [b.model_dump(mode="json") for b in to_vendor.content] == [
        {"type": "text", "text": "reasoning"},
        {"type": "text", "text": "done"},
    ]
    dropped = transform(history, CLAUDE)[1]  # the default (pi-ai 1.6): foreign thinking dropped
    assert [b.model_dump(mode="json") for b in dropped.content] == [  # type: ignore[union-attr]
        {"type": "text", "text": "done"}
    ]
    # the same proxy again: replayed as is
    assert transform(history, proxy)[1] is turn
    # a message from pi-mono (no origin recorded) keeps pi-mono's rule
    legacy = turn.model_copy(update={"signature_origin": None})
    assert transform([UserMessage(content="q"), legacy], CLAUDE)[1] is legacy


def test_bedrock_minted_signature_not_replayed_to_anthropic() -> None:
    bedrock = Model(
        id=CLAUDE.id,
        api="bedrock-converse-stream",
        provider="amazon-bedrock",
        base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    )
    turn = assistant(
        bedrock, ThinkingContent(thinking="hm", thinking_signature="bedrock-sig"), stop="stop"
    )
    out = transform([UserMessage(content="q"), turn], CLAUDE)
    assert "bedrock-sig" not in json.dumps(dump(out))


def test_custom_client_origin_is_honoured() -> None:
    actual = "http://127.0.0.1:8080/v1"
    message = new_assistant_message(CLAUDE, base_url=actual)
    message.content = [ThinkingContent(thinking="x", thinking_signature="s")]
    assert not is_same_source(message, CLAUDE)
    assert is_same_source(message, CLAUDE, signature_origin(CLAUDE, base_url=actual))
    out = transform([message], CLAUDE, origin=signature_origin(CLAUDE, base_url=actual))
    assert out == [message]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("https://api.anthropic.com", "https://API.anthropic.com:443/", True),
        ("https://api.openai.com/v1", "https://api.openai.com", True),
        ("", "https://api.anthropic.com", True),  # empty = the API's public endpoint
        ("https://user:pw@proxy.example.com/x?key=secret", "https://proxy.example.com/x", True),
        ("https://api.anthropic.com", "https://proxy.example.com", False),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8081", False),
    ],
)
def test_signature_origin_normalization(a: str, b: str, same: bool) -> None:
    origin_a = signature_origin(CLAUDE, base_url=a)
    assert (origin_a == signature_origin(CLAUDE, base_url=b)) is same
    assert "secret" not in origin_a and "pw" not in origin_a


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("http://Local.test:80/", "http://local.test"),  # each scheme's own default port
        ("https://local.test:443", "https://local.test"),
        ("http://local.test:443", "http://local.test:443"),  # another scheme's is kept
        ("https://local.test:80", "https://local.test:80"),
        ("HTTPS://Host.Test:8443/Path/", "https://host.test:8443/Path"),  # path case kept
        ("api.example.com/v1", "https://api.example.com"),  # no scheme: https
        ("  https://h.test/v1/  ", "https://h.test"),
        ("https://h.test:99999/x", "https://h.test/x"),  # no valid port: none
        ("https://h.test/v1beta", "https://h.test"),
        ("https://h.test/v2alpha1", "https://h.test"),
        ("https://h.test/api/v3/", "https://h.test/api"),
        ("https://h.test/v1/models", "https://h.test/v1/models"),  # only a trailing version
        ("https://h.test/version", "https://h.test/version"),
        ("   ", ""),
    ],
)
def test_signature_origin_normalizes_the_base_url(url: str, normalized: str) -> None:
    assert signature_origin(CLAUDE, base_url=url) == f"anthropic-messages@{normalized}"


def test_signature_origin_follows_the_model_s_base_url_as_it_changes() -> None:
    # The normalized base URL is cached by its text: a model moved to another endpoint (or
    # the same text asked again) still gets the origin of the URL it has now.
    first = CLAUDE.model_copy(update={"base_url": "https://a.example.com/v1"})
    moved = first.model_copy(update={"base_url": "https://b.example.com:8443/v1/"})
    assert signature_origin(first) == "anthropic-messages@https://a.example.com"
    assert signature_origin(moved) == "anthropic-messages@https://b.example.com:8443"
    assert signature_origin(first) == "anthropic-messages@https://a.example.com"
    first.base_url = "https://c.example.com"
    assert signature_origin(first) == "anthropic-messages@https://c.example.com"


# --- Done when: a lone surrogate in a tool result ----------------------------------------------


def test_lone_surrogates_removed_everywhere_pairs_kept() -> None:
    source = Model(id="m", api="openai-completions", provider="local")
    history: list[Message] = [
        UserMessage(content="hi \ud83d there 😀"),
        assistant(
            source,
            ThinkingContent(thinking="think \udc00"),
            pi_sdk.TextContent(text="text \ud800"),
            ToolCall(id="c1", name="f", arguments={"k\ud800": ["v\udfff", {"n": "😀\ud83d"}]}),
        ),
        pi_sdk.ToolResultMessage(
            tool_call_id="c1", tool_name="f", content=[pi_sdk.TextContent(text="out\ud83d put 😀")]
        ),
    ]
    before = repr(history)
    out = transform(history, CLAUDE, foreign_reasoning="text")
    encoded = json.dumps(dump(out), ensure_ascii=False).encode("utf-8")  # raises on a lone one
    decoded = json.loads(encoded)
    assert decoded[0]["content"] == "hi  there 😀"
    assert decoded[1]["content"][2]["arguments"] == {"k": ["v", {"n": "😀"}]}
    assert decoded[2]["content"][0]["text"] == "out put 😀"
    assert repr(history) == before  # input not mutated


# --- Done when: an image tool result sent to a text-only model ---------------------------------


def test_images_to_text_only_model_become_placeholders() -> None:
    image = pi_sdk.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    history: list[Message] = [
        UserMessage(content=[pi_sdk.TextContent(text="look"), image]),
        assistant(CLAUDE, ToolCall(id="toolu_1", name="screenshot", arguments={})),
        pi_sdk.ToolResultMessage(tool_call_id="toolu_1", tool_name="screenshot", content=[image]),
    ]
    out = transform(history, CHAT)  # input: ["text"]
    assert "iVBORw0KGgo=" not in json.dumps(dump(out))
    assert out[0].content[1] == pi_sdk.TextContent(text=IMAGE_PLACEHOLDER_TEXT)  # type: ignore[index]
    assert out[2].content == [pi_sdk.TextContent(text=IMAGE_PLACEHOLDER_TEXT)]  # type: ignore[union-attr]
    vision = transform(history, GPT)
    assert vision[0] is history[0] and vision[2].content == [image]  # type: ignore[union-attr]


# --- pass 2: orphans, errored turns -------------------------------------------------------------


def test_orphaned_call_gets_synthetic_error_result_before_next_user_message() -> None:
    history: list[Message] = [
        UserMessage(content="q"),
        assistant(
            CLAUDE,
            ToolCall(id="toolu_a", name="f", arguments={}),
            ToolCall(id="toolu_b", name="g", arguments={}),
        ),
        result("toolu_a", name="f"),
        UserMessage(content="never mind"),
    ]
    out = transform(history, CLAUDE)
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "toolResult", "user"]
    synthetic = out[3]
    assert isinstance(synthetic, pi_sdk.ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.is_error) == (
        "toolu_b",
        "g",
        True,
    )
    assert synthetic.content == [pi_sdk.TextContent(text=NO_RESULT_TEXT)]


def test_trailing_pending_calls_get_no_synthetic_result() -> None:
    history: list[Message] = [
        UserMessage(content="q"),
        assistant(CLAUDE, ToolCall(id="toolu_a", name="f", arguments={})),
    ]
    assert [m.role for m in transform(history, CLAUDE)] == ["user", "assistant"]


def test_errored_turn_skipped_with_its_results_and_orphan_results_dropped() -> None:
    history: list[Message] = [
        UserMessage(content="q"),
        assistant(CLAUDE, ToolCall(id="toolu_x", name="f", arguments={}), stop="error"),
        result("toolu_x", name="f"),
        result("toolu_nobody", name="f"),
        UserMessage(content="retry"),
        assistant(CLAUDE, ToolCall(id="toolu_y", name="f", arguments={})),
        result("toolu_y", name="f", text="first"),
        result("toolu_y", name="f", text="duplicate"),
    ]
    out = transform(history, GPT)
    assert [m.role for m in out] == ["user", "user", "assistant", "toolResult"]
    assert out[3].content[0].text == "first"  # type: ignore[union-attr]


def test_assistant_turn_left_empty_is_skipped() -> None:
    turn = assistant(
        GPT,
        ThinkingContent(thinking="only thoughts", thinking_signature=REASONING_ITEM),
        stop="stop",
    )
    history: list[Message] = [UserMessage(content="a"), turn, UserMessage(content="b")]
    assert [m.role for m in transform(history, CLAUDE, foreign_reasoning="drop")] == [
        "user",
        "user",
    ]


# --- reasoning_content replay flag --------------------------------------------------------------


def test_requires_reasoning_content_keeps_foreign_thinking_as_reasoning() -> None:
    history: list[Message] = [
        UserMessage(content="q"),
        assistant(
            CLAUDE,
            ThinkingContent(thinking="step by step", thinking_signature="anthropic-sig"),
            ToolCall(id="toolu_1", name="f", arguments={}),
        ),
        result("toolu_1", name="f"),
    ]
    turn = transform(history, DEEPSEEK, foreign_reasoning="text")[1]
    assert isinstance(turn, pi_sdk.AssistantMessage)
    assert turn.content[0] == ThinkingContent(
        thinking="step by step", thinking_signature="reasoning_content"
    )
    dropped = transform(history, DEEPSEEK, foreign_reasoning="drop")[1]
    assert not any(isinstance(b, ThinkingContent) for b in dropped.content)  # type: ignore[union-attr]
    # without the flag: plain text (pi-mono)
    plain = transform(history, CHAT, foreign_reasoning="text")[1]
    assert plain.content[0] == pi_sdk.TextContent(text="step by step")  # type: ignore[union-attr]
    # the adapter's own answer wins over model.compat, both ways; 0.73's compat key counts too
    told = transform(history, CHAT, reasoning_content=True, foreign_reasoning="text")[1]
    assert told.content[0] == turn.content[0]  # type: ignore[union-attr]
    untold = transform(history, DEEPSEEK, reasoning_content=False, foreign_reasoning="text")[1]
    assert untold.content[0] == pi_sdk.TextContent(text="step by step")  # type: ignore[union-attr]
    on_all = CHAT.model_copy(
        update={"compat": {"requiresReasoningContentOnAssistantMessages": True}}
    )
    kept = transform(history, on_all, foreign_reasoning="text")[1]
    assert kept.content[0] == turn.content[0]  # type: ignore[union-attr]


# --- no mutation, JSON round trip ---------------------------------------------------------------


def test_input_history_is_never_mutated() -> None:
    history = responses_turn() + [UserMessage(content="next")]
    snapshot = json.dumps(dump(history))
    for target in (CLAUDE, GPT, GEMINI, CHAT, DEEPSEEK):
        transform(history, target, foreign_reasoning="tagged")
    assert json.dumps(dump(history)) == snapshot


def test_signature_origin_round_trips_through_json() -> None:
    turn = assistant(CLAUDE, pi_sdk.TextContent(text="x"))
    data = turn.model_dump(mode="json")
    assert data["signatureOrigin"] == "anthropic-messages@https://api.anthropic.com"
    assert pi_sdk.AssistantMessage.model_validate(data) == turn


@pytest.mark.parametrize(
    "api", ["anthropic-messages", "openai-responses", "openai-completions", "google-generative-ai"]
)
def test_core_knows_no_vendor_endpoint(api: str) -> None:
    # A model without a base URL has no origin in core: the provider passes the URL it calls.
    model = Model(id="m", api=api, provider="p", base_url="")
    assert signature_origin(model) == f"{api}@"
    called = "https://Example.test:443/v1/"
    assert signature_origin(model, base_url=called) == f"{api}@https://example.test"
    # An empty base_url argument means "not given": the model's own URL counts.
    assert signature_origin(CLAUDE, base_url="") == signature_origin(CLAUDE)


def test_a_made_block_has_the_constructor_s_fields_also_when_made_first() -> None:
    """Text and reasoning blocks the rules make are copies of templates built on first use."""
    transform_module._templates.cache_clear()  # build them here, in this test
    history: list[Message] = [
        UserMessage(content="q"),
        assistant(CLAUDE, ThinkingContent(thinking="why", thinking_signature="anthropic-sig")),
    ]
    expected = {
        "reasoning": ThinkingContent(thinking="why", thinking_signature="reasoning_content"),
        "text": pi_sdk.TextContent(text="why"),
    }
    made = {
        "reasoning": transform(history, DEEPSEEK, foreign_reasoning="text")[1].content[0],  # type: ignore[union-attr]
        "text": transform(history, CHAT, foreign_reasoning="text")[1].content[0],  # type: ignore[union-attr]
    }
    for kind, block in made.items():
        want = expected[kind]
        assert type(block) is type(want), kind
        assert block.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True), kind
        assert block.model_fields_set == want.model_fields_set, kind


# --- a history read back from JSON, sent to a model configured at run time --------------------


def decoded(history: list[Message]) -> list[Message]:
    """``history`` as a session file gives it back: its strings made by the JSON decoder."""
    return TypeAdapter(list[Message]).validate_python(json.loads(json.dumps(dump(history))))


def configured(model: Model, **fields: str) -> Model:
    """``model`` with its id, provider and API set from strings read at run time (settings)."""
    update = {"id": model.id, "provider": model.provider, "api": model.api, **fields}
    return model.model_copy(update={k: built(v) for k, v in update.items()})


def _signed_turn() -> list[Message]:
    turn = assistant(
        CLAUDE,
        ThinkingContent(thinking="why", thinking_signature="EqQBCkYI"),
        pi_sdk.TextContent(text="calling", text_signature="ts"),
        ToolCall(id="toolu_01", name="f", arguments={"a": 1}, thought_signature="th"),
    )
    return decoded([UserMessage(content="q"), turn, result("toolu_01", name="f")])


def test_a_decoded_history_keeps_its_signatures_for_its_own_model_configured_at_run_time() -> None:
    history = _signed_turn()
    target = configured(CLAUDE)
    assert is_same_source(history[1], target)  # type: ignore[arg-type]
    out = transform_messages(history, target, foreign_reasoning="text")
    assert dump(out) == dump(history)
    assert all(a is b for a, b in zip(out, history, strict=True))  # nothing copied


@pytest.mark.parametrize(
    "other",
    [{"id": "claude-opus-4-1"}, {"provider": "anthropic-eu"}, {"api": "anthropic-other"}],
    ids=["id", "provider", "api"],
)
def test_a_decoded_history_sent_to_another_model_loses_its_signatures(
    other: dict[str, str],
) -> None:
    history = _signed_turn()
    target = configured(CLAUDE, **other)
    assert not is_same_source(history[1], target)  # type: ignore[arg-type]
    out = transform_messages(history, target, foreign_reasoning="text")
    assert dump(out)[1]["content"] == [
        {"type": "text", "text": "why"},
        {"type": "text", "text": "calling"},
        {"type": "toolCall", "id": "toolu_01", "name": "f", "arguments": {"a": 1}},
    ]
