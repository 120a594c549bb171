"""openai-responses: input items from any history, request options, stream normalization.

Request tests call :func:`build_responses_payload` (or capture the body sent through the real
stream function); stream tests serve hand-written event streams through an ``AsyncOpenAI``
client on a chunking transport and check pi-spec §2's invariants on every run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.conformance import Reply
from _support.messages import reply
from _support.models import described, model_maker, recognized
from _support.openai_fakes import JSON, run
from pi_sdk_openai.responses import Decoder as ResponsesDecoder
from pi_sdk_openai.responses import build_payload as build_responses_payload
from pi_sdk_openai.responses import session_affinity_headers
from pi_sdk_openai.responses._compat import resolve_responses_compat

import pi_sdk
from pi_sdk import Context, Model, TextContent, UserMessage
from pi_sdk._wire.transform import is_same_model
from pi_sdk.provider import MessageBuilder, load_models_json

IMAGE = pi_sdk.ImageContent(data="aGVsbG8=", mime_type="image/png")
REASONING_ITEM = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Plan"}],
    "encrypted_content": "gAAAA-opaque",
}


model = model_maker(
    {
        "id": "gpt-5.2",
        "name": "GPT-5.2",
        "api": "openai-responses",
        "provider": "openai",
        "base_url": "https://api.openai.com/v1",
        "reasoning": True,
        "input": ["text", "image"],
        "max_tokens": 128_000,
        "cost": {"input": 1.0, "output": 10.0, "cache_read": 0.1},
    }
)


def payload(m: Model, context: Context | None = None, **options: Any) -> dict[str, Any]:
    context = context or Context(messages=[UserMessage(content="hi")])
    return build_responses_payload(m, context, pi_sdk.StreamOptions(**options))


def reasoning_turn(m: Model) -> pi_sdk.AssistantMessage:
    """A turn of ``m``: encrypted reasoning, a tool call, then (after the result) text."""
    return pi_sdk.AssistantMessage(
        api=m.api,
        provider=m.provider,
        model=m.id,
        stop_reason="toolUse",
        content=[
            pi_sdk.ThinkingContent(thinking="Plan", thinking_signature=json.dumps(REASONING_ITEM)),
            TextContent(
                text="Let me check.",
                text_signature='{"v":1,"id":"msg_1","phase":"commentary"}',
            ),
            pi_sdk.ToolCall(id="call_1|fc_1", name="lookup", arguments={"q": "x"}),
        ],
    )


def history(owner: Model) -> Context:
    return Context(
        system_prompt="sys",
        messages=[
            UserMessage(content="q"),
            reasoning_turn(owner),
            pi_sdk.ToolResultMessage(
                tool_call_id="call_1|fc_1", tool_name="lookup", content=[TextContent(text="42")]
            ),
        ],
        tools=[pi_sdk.Tool(name="lookup", description="d")],
    )


# --- request ----------------------------------------------------------------------------------


def test_basic_payload():
    body = payload(
        model(reasoning=False), Context(system_prompt="sys", messages=[UserMessage(content="hi")])
    )
    assert body == {
        "model": "gpt-5.2",
        "input": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        ],
        "stream": True,
        "store": False,
        "max_output_tokens": 128_000 - 2 - 4096,  # the window minus "sys"+"hi" minus 4,096
    }


def test_reasoning_model_requests_encrypted_reasoning_and_effort():
    body = payload(model(), reasoning="high")
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    off = payload(model())
    assert "reasoning" not in off and "include" not in off  # pi-ai 1.6: only with reasoning
    summary_only = payload(model(), provider_options={"reasoning_summary": "detailed"})
    assert summary_only["reasoning"] == {"effort": "medium", "summary": "detailed"}
    assert payload(model(id="o3"), reasoning="xhigh")["reasoning"]["effort"] == "high"


@pytest.mark.parametrize(
    ("update", "sent"),
    [
        ({"id": "o3"}, {"effort": "none"}),
        ({"id": "o4-mini"}, {"effort": "none"}),
        ({"id": "gpt-5.2"}, None),  # 0.73's catalog: thinkingLevelMap.off is null for gpt-5*
        ({"id": "gpt-5-mini"}, None),
        ({"id": "o3", "provider": "github-copilot"}, None),
        ({"id": "o3", "compat": {"thinkingLevelMap": {"off": "minimal"}}}, {"effort": "minimal"}),
        ({"id": "x-5", "compat": {"thinkingLevelMap": {"off": None}}}, None),
        ({"id": "gpt-5.9", "compat": {"thinkingLevelMap": {"off": "none"}}}, {"effort": "none"}),
        # the catalog's thinkingLevelMap (Model.thinking_level_map) is read first
        ({"id": "gpt-5.9", "thinking_level_map": {"off": "none"}}, {"effort": "none"}),
        ({"id": "o3", "thinking_level_map": {"off": None}}, None),
        ({"id": "o3", "thinking_level_map": {"xhigh": "xhigh"}}, {"effort": "none"}),
        ({"id": "o3", "reasoning": False}, None),
    ],
)
def test_reasoning_off_sends_effort_none_where_pi_ai_does(update: dict[str, Any], sent: Any):
    """Issue 12 defect 4 (pi-ai 0.73 ``buildParams``): reasoning off is said, not implied."""
    body = payload(model(**update))
    assert body.get("reasoning") == sent
    assert payload(model(**update), reasoning="low").get("reasoning", {}).get("effort") in (
        None,
        "low",
    )


def test_system_prompt_role_follows_reasoning():
    context = Context(system_prompt="sys", messages=[UserMessage(content="hi")])
    assert payload(model(), context)["input"][0] == {"role": "developer", "content": "sys"}


def test_cache_key_retention_tier_tools_and_temperature(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    context = Context(
        messages=[UserMessage(content="hi")], tools=[pi_sdk.Tool(name="t", description="d")]
    )
    body = payload(
        model(),
        context,
        session_id="s-1",
        cache_retention="long",
        temperature=0.2,
        provider_options={"service_tier": "flex", "tool_choice": "auto"},
    )
    assert body["prompt_cache_key"] == "s-1"
    assert body["prompt_cache_retention"] == "24h"
    assert body["service_tier"] == "flex" and body["tool_choice"] == "auto"
    assert body["temperature"] == 0.2
    assert body["tools"] == [
        {
            "type": "function",
            "name": "t",
            "description": "d",
            "parameters": {"type": "object", "properties": {}},
        }  # "strict" only where compat.supportsStrictMode says so (pi-ai 1.6)
    ]
    assert "prompt_cache_key" not in payload(model(), session_id="s-1", cache_retention="none")
    other_host = payload(
        model(base_url="https://openrouter.ai/api/v1"), session_id="s", cache_retention="long"
    )
    assert other_host["prompt_cache_retention"] == "24h"  # pi-ai 1.6: any host by default
    no_long = payload(
        model(compat={"supportsLongCacheRetention": False}), session_id="s", cache_retention="long"
    )
    assert "prompt_cache_retention" not in no_long
    explicit = model(compat={"supportsExplicitPromptCacheMode": True})
    assert payload(explicit, session_id="s", cache_retention="long")["prompt_cache_options"] == {
        "ttl": "30m"
    }
    assert payload(explicit, session_id="s", cache_retention="none")["prompt_cache_options"] == {
        "mode": "explicit"
    }
    off = model(compat={"promptCacheKeyMode": "disabled"})
    assert "prompt_cache_key" not in payload(off, session_id="s")


def test_provider_options_are_checked():
    with pytest.raises(pi_sdk.ConfigurationError, match="reasoning_sumary"):
        payload(model(), provider_options={"reasoning_sumary": "auto"})
    with pytest.raises(pi_sdk.ConfigurationError, match="must be a string"):
        payload(model(), provider_options={"service_tier": 2})


def test_encrypted_reasoning_is_replayed_to_the_same_model():
    m = model()
    items = payload(m, history(m))["input"]
    assert items[2] == REASONING_ITEM  # verbatim, right before the items it produced
    assert items[3] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
        "status": "completed",
        "id": "msg_1",
        "phase": "commentary",
    }
    assert items[4] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": '{"q":"x"}',
        "id": "fc_1",
    }
    assert items[5] == {"type": "function_call_output", "call_id": "call_1", "output": "42"}


def test_same_history_to_a_different_model_has_no_reasoning_items_or_foreign_ids():
    owner = model()
    target = model(id="gpt-5-mini", name="GPT-5 mini")
    items = payload(target, history(owner))["input"]
    sent = json.dumps(items)
    assert "reasoning" not in [i.get("type") for i in items]
    assert "gAAAA" not in sent and "msg_1" not in sent and "fc_1" not in sent
    # another model's thinking ("Plan") is dropped (pi-ai 1.6)
    assert items[2] == {"type": "message", "role": "assistant", "content": "Let me check."}
    call = items[3]
    assert call["type"] == "function_call" and "id" not in call
    assert items[4] == {"type": "function_call_output", "call_id": call["call_id"], "output": "42"}


def test_same_model_without_replayable_reasoning_sends_no_item_ids():
    m = model()
    turn = reasoning_turn(m)
    turn.content[0] = pi_sdk.ThinkingContent(
        thinking="Plan"
    )  # no encrypted content: not replayable
    context = Context(messages=[UserMessage(content="q"), turn])
    items = payload(m, context)["input"]
    assert [i.get("type") for i in items] == [None, "message", "function_call"]
    assert "id" not in items[2] and items[1] == {
        "type": "message",
        "role": "assistant",
        "content": "Let me check.",
    }


def test_parallel_tool_calls_and_results_with_images():
    m = model()
    turn = reply(
        m,
        pi_sdk.ToolCall(id="call_a|fc_a", name="shot", arguments={"n": 1}),
        pi_sdk.ToolCall(id="call_b|fc_b", name="shot", arguments={"n": 2}),
    )
    context = Context(
        messages=[
            UserMessage(content=[TextContent(text="look"), IMAGE]),
            turn,
            pi_sdk.ToolResultMessage(
                tool_call_id="call_a|fc_a",
                tool_name="shot",
                content=[TextContent(text="one"), IMAGE],
            ),
            pi_sdk.ToolResultMessage(tool_call_id="call_b|fc_b", tool_name="shot", content=[IMAGE]),
        ]
    )
    items = payload(m, context)["input"]
    image = {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,aGVsbG8="}
    assert items[0] == {"role": "user", "content": [{"type": "input_text", "text": "look"}, image]}
    assert [(i["type"], i["call_id"]) for i in items[1:]] == [
        ("function_call", "call_a"),
        ("function_call", "call_b"),
        ("function_call_output", "call_a"),
        ("function_call_output", "call_b"),
    ]
    assert "id" not in items[1]  # no reasoning replayed with them
    assert items[3]["output"] == [{"type": "input_text", "text": "one"}, image]
    assert items[4]["output"] == [image]


def test_orphaned_call_gets_a_synthetic_error_result():
    m = model()
    turn = reply(m, pi_sdk.ToolCall(id="call_z|fc_z", name="t"))
    items = payload(
        m, Context(messages=[UserMessage(content="q"), turn, UserMessage(content="never mind")])
    )["input"]
    assert items[2] == {
        "type": "function_call_output",
        "call_id": "call_z",
        "output": "No result provided",
    }


# --- stream -----------------------------------------------------------------------------------


def sse(*events: dict[str, Any], done: bool = False) -> bytes:
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def completed(
    status: str = "completed", *, usage: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    response = {
        "id": "resp_1",
        "status": status,
        "model": "gpt-5.2-2025",
        "output": [],
        "usage": usage
        if usage is not None
        else {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 40},
            "output_tokens": 30,
            "output_tokens_details": {"reasoning_tokens": 20},
            "total_tokens": 130,
        },
        **extra,
    }
    kind = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
        status, "response.failed"
    )
    return {"type": kind, "response": response}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def text_delta(index: int, delta: str) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "output_index": index,
        "item_id": "msg_1",
        "content_index": 0,
        "delta": delta,
    }


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "status": "in_progress",
    "content": [],
}


def message_done(text: str, **extra: Any) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if text else []
    return {**MESSAGE, "status": "completed", "content": content, **extra}


@pytest.mark.parametrize("chunk_size", [1, 4, 100])
async def test_reasoning_summary_parts_then_text(chunk_size: int):
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = sse(
        {
            "type": "response.created",
            "response": {"model": "gpt-5.2-2025", "status": "in_progress"},
        },
        added(0, reasoning),
        {
            "type": "response.reasoning_summary_part.added",
            "output_index": 0,
            "item_id": "rs_1",
            "summary_index": 0,
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": "rs_1",
            "delta": "**A**",
        },
        {
            "type": "response.reasoning_summary_part.added",
            "output_index": 0,
            "item_id": "rs_1",
            "summary_index": 1,
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": "rs_1",
            "delta": "B",
        },
        done(
            0,
            {
                **reasoning,
                "summary": [
                    {"type": "summary_text", "text": "**A**"},
                    {"type": "summary_text", "text": "B"},
                ],
                "encrypted_content": "enc",
            },
        ),
        added(1, MESSAGE),
        text_delta(1, "Hi"),
        text_delta(1, " é"),
        done(1, message_done("Hi é", phase="final_answer")),
        completed(),
    )
    _, message, _ = await run(model(), body, chunk_size=chunk_size)
    thinking, text = message.content
    assert isinstance(thinking, pi_sdk.ThinkingContent) and thinking.thinking == "**A**\n\nB"
    assert json.loads(thinking.thinking_signature or "")["encrypted_content"] == "enc"
    assert isinstance(text, TextContent) and text.text == "Hi é"
    assert json.loads(text.text_signature or "") == {"v": 1, "id": "msg_1", "phase": "final_answer"}
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.total_tokens) == (60, 30, 40, 130)
    assert u.cost.total == pytest.approx((60 * 1.0 + 30 * 10.0 + 40 * 0.1) / 1e6)
    assert message.stop_reason == "stop"


async def test_interleaved_items_stay_apart_and_raw_reasoning_text_counts():
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = sse(
        added(0, reasoning),
        {
            "type": "response.reasoning_text.delta",
            "output_index": 0,
            "item_id": "rs_1",
            "delta": "think",
        },
        added(1, MESSAGE),
        text_delta(1, "4"),
        {
            "type": "response.reasoning_text.delta",
            "output_index": 0,
            "item_id": "rs_1",
            "delta": "ing",
        },
        done(1, message_done("4")),
        done(0, {**reasoning, "content": [{"type": "reasoning_text", "text": "thinking"}]}),
        completed(),
        done=True,
    )
    events, message, _ = await run(model(), body)
    assert [type(b).__name__ for b in message.content] == ["ThinkingContent", "TextContent"]
    assert message.content[0].thinking == "thinking"  # type: ignore[union-attr]
    assert message.content[0].thinking_signature is None  # type: ignore[union-attr]
    order = [(e.type, getattr(e, "content_index", None)) for e in events]
    assert order.index(("text_end", 1)) < order.index(("thinking_end", 0))


async def test_function_calls_and_tool_use():
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "mul",
        "arguments": "",
        "status": "in_progress",
    }
    args = '{"a": 2, "b": 3}'
    body = sse(
        added(0, call),
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc_1",
            "delta": args[:7],
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc_1",
            "delta": args[7:],
        },
        {
            "type": "response.function_call_arguments.done",
            "output_index": 0,
            "item_id": "fc_1",
            "arguments": args,
        },
        done(0, {**call, "arguments": args, "status": "completed"}),
        added(1, {**call, "id": "fc_2", "call_id": "call_2"}),
        done(1, {**call, "id": "fc_2", "call_id": "call_2", "arguments": "{}"}),
        completed(),
    )
    events, message, _ = await run(model(), body)
    assert [(c.id, c.arguments) for c in message.tool_calls] == [
        ("call_1|fc_1", {"a": 2, "b": 3}),
        ("call_2|fc_2", {}),
    ]
    assert message.stop_reason == "toolUse"
    second = "".join(e.delta for e in events if e.type == "toolcall_delta" and e.content_index == 1)
    assert second == "{}"  # arguments only in the done item still arrive as a delta


async def test_refusal_is_an_error_not_text():
    body = sse(
        added(0, MESSAGE),
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "msg_1",
            "part": {"type": "refusal", "refusal": ""},
        },
        {
            "type": "response.refusal.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "delta": "I can't help with that.",
        },
        done(
            0, {**MESSAGE, "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
        ),
        completed(),
    )
    _, message, _ = await run(model(), body)
    assert message.stop_reason == "error"
    assert message.error_message == "I can't help with that."
    assert message.text == ""


async def test_incomplete_is_length_and_keeps_usage():
    body = sse(
        added(0, MESSAGE),
        text_delta(0, "cut"),
        completed("incomplete", incomplete_details={"reason": "max_output_tokens"}),
    )
    _, message, _ = await run(model(), body)
    assert message.stop_reason == "length" and message.text == "cut"
    assert message.usage.output == 30


async def test_failed_and_error_events_raise_with_the_vendor_message():
    failed = completed("failed", error={"code": "server_error", "message": "The model failed"})
    _, message, _ = await run(model(), sse(added(0, MESSAGE), text_delta(0, "par"), failed))
    assert (
        message.stop_reason == "error" and message.error_message == "server_error: The model failed"
    )
    assert message.text == "par"
    error = {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None}
    _, message, _ = await run(model(), sse(error))
    assert message.error_message == "rate_limit_exceeded: Slow down"


async def test_stream_without_terminal_event_is_incomplete():
    _, message, _ = await run(model(), sse(added(0, MESSAGE), text_delta(0, "half")))
    assert message.stop_reason == "error" and "response.completed" in (message.error_message or "")
    assert message.text == "half"


async def test_text_for_a_finished_item_is_an_error_that_keeps_the_reply():
    # A delta after its item's output_item.done cannot belong to the finished block.
    body = sse(
        added(0, MESSAGE), text_delta(0, "Hi"), done(0, message_done("Hi")), text_delta(0, "late")
    )
    events, message, _ = await run(model(), body)
    assert message.stop_reason == "error" and "not open" in (message.error_message or "")
    assert message.text == "Hi"
    assert [e.type for e in events].count("text_end") == 1


@pytest.mark.parametrize(("tier", "factor"), [("flex", 0.5), ("priority", 2.0), ("default", 1.0)])
async def test_service_tier_pricing(tier: str, factor: float):
    builder = MessageBuilder(model())
    decoder = ResponsesDecoder(builder, service_tier="auto")
    decoder.feed(completed(service_tier=tier))
    cost = builder.message.usage.cost
    assert cost.total == pytest.approx(factor * (60 * 1.0 + 30 * 10.0 + 40 * 0.1) / 1e6)
    assert cost.total == pytest.approx(cost.input + cost.output + cost.cache_read)


async def test_non_streamed_response_body():
    response = completed(
        output=[
            {"id": "rs_9", "type": "reasoning", "summary": [], "encrypted_content": "e"},
            {
                "id": "fc_9",
                "type": "function_call",
                "call_id": "call_9",
                "name": "f",
                "arguments": '{"k":1}',
            },
            message_done("done"),
        ]
    )["response"]
    _, message, _ = await run(model(), [Reply(200, json.dumps(response).encode(), JSON)])
    assert [type(b).__name__ for b in message.content] == [
        "ThinkingContent",
        "ToolCall",
        "TextContent",
    ]
    assert message.content[0].thinking_signature  # type: ignore[union-attr]
    assert message.tool_calls[0].id == "call_9|fc_9" and message.tool_calls[0].arguments == {"k": 1}
    assert message.text == "done" and message.stop_reason == "toolUse"


async def test_request_goes_to_responses_path_with_hooked_payload():
    captured: list[dict[str, Any]] = []
    body = sse(added(0, MESSAGE), text_delta(0, "ok"), done(0, message_done("ok")), completed())
    _, message, transport = await run(
        model(), body, on_payload=lambda p, _m: captured.append(p), session_id="sess"
    )
    assert message.text == "ok"
    request = transport.requests[0]
    assert request.url.path.endswith("/v1/responses")
    assert json.loads(request.content) == captured[0]
    assert captured[0]["prompt_cache_key"] == "sess"


async def test_replay_signature_is_bound_to_the_endpoint_called():
    body = sse(added(0, MESSAGE), text_delta(0, "ok"), done(0, message_done("ok")), completed())
    _, message, _ = await run(model(), body)
    # The fake client points at another host than model.base_url: the stamp says so, and the
    # turn's item ids are not replayed to api.openai.com.
    assert message.signature_origin == "openai-responses@https://api.example.test"
    assert is_same_model(message, model())
    assert not pi_sdk.provider.is_same_source(message, model())


def test_recognizer():
    api, openrouter = "openai-responses", "https://openrouter.ai/api/v1"
    found = recognized(api, f"{openrouter}/responses", {"model": "openai/gpt-oss-20b"})
    assert described(found, "provider", "base_url", "api") == ("openrouter", openrouter, api)
    openai = recognized(api, "https://api.openai.com/v1/responses", {"model": "gpt-5.2"})
    assert openai is not None and openai.reasoning and openai.cost.output > 0
    assert recognized(api, "https://api.openai.com/v1/chat/completions", {"model": "x"}) is None


async def test_items_left_open_are_finished_from_the_completed_response():
    body = sse(added(0, MESSAGE), text_delta(0, "Hel"), completed(output=[message_done("Hello")]))
    _, message, _ = await run(model(), body)
    assert message.text == "Hello" and message.stop_reason == "stop"
    assert json.loads(message.content[0].text_signature or "") == {"v": 1, "id": "msg_1"}  # type: ignore[union-attr]


async def test_deltas_addressed_by_item_id_alone_reach_their_items():
    # A proxy (or a reordered stream) may send a delta whose output_index names no item; the
    # item_id still names it. Text and arguments each reach their own block.
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "mul"}
    body = sse(
        added(0, MESSAGE),
        added(1, {**call, "arguments": ""}),
        {"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Hel"},
        {
            "type": "response.output_text.delta",
            "output_index": 7,
            "item_id": "msg_1",
            "delta": "lo",
        },
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"a":'},
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 9,
            "item_id": "fc_1",
            "delta": " 2}",
        },
        done(0, message_done("Hello")),
        done(1, {**call, "arguments": '{"a": 2}'}),
        completed(),
    )
    events, message, _ = await run(model(), body)
    assert message.stop_reason == "toolUse", message.error_message
    assert message.text == "Hello"
    assert [(c.id, c.arguments) for c in message.tool_calls] == [("call_1|fc_1", {"a": 2})]
    # Streamed as sent, not recovered afterwards from the finished items.
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hel", "lo"]
    assert [e.delta for e in events if e.type == "toolcall_delta"] == ['{"a":', " 2}"]


async def test_deltas_naming_no_item_or_carrying_no_text_are_ignored():
    nameless = {**MESSAGE, "id": ""}  # an item without an id is reachable by its index only
    body = sse(
        added(0, nameless),
        text_delta(0, "Hi"),
        {"type": "response.output_text.delta", "delta": "stray"},  # neither index nor id
        {"type": "response.output_text.delta", "item_id": "msg_9", "delta": "stray"},
        {"type": "response.output_text.delta", "output_index": 0, "delta": ""},
        {"type": "response.output_text.delta", "output_index": 0, "delta": 5},
        {"type": "response.output_text.delta", "output_index": 0, "delta": None},
        done(0, message_done("Hi", id="")),
        completed(),
    )
    events, message, _ = await run(model(), body)
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hi"
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hi"]


def test_reasoning_off_follows_the_catalogs_thinking_level_map():
    """Every catalog ``openai`` model: reasoning off sends ``thinkingLevelMap.off ?? "none"``,
    nothing where the map says ``off: null`` (pi-ai 0.73.1 ``buildParams``)."""
    catalog = [m for m in load_models_json("pi_sdk_openai") if m.provider == "openai"]
    assert any(m.thinking_level_map for m in catalog)
    for entry in catalog:
        body = payload(entry)
        levels = entry.thinking_level_map or {}
        if not entry.reasoning or ("off" in levels and levels["off"] is None):
            assert "reasoning" not in body, entry.id
        else:
            assert body["reasoning"] == {"effort": levels.get("off") or "none"}, entry.id


def test_session_affinity_headers_and_compat_flags() -> None:
    options = pi_sdk.StreamOptions(session_id="s-1")
    plain = resolve_responses_compat(model())
    assert session_affinity_headers(plain, options) == {
        "session-id": "s-1",
        "x-client-request-id": "s-1",
    }
    router = resolve_responses_compat(model(base_url="https://openrouter.ai/api/v1"))
    assert session_affinity_headers(router, options) == {"x-session-id": "s-1"}
    nosession = resolve_responses_compat(
        model(compat={"sessionAffinityFormat": "openai-nosession"})
    )
    assert session_affinity_headers(nosession, options) == {"x-client-request-id": "s-1"}
    assert session_affinity_headers(plain, pi_sdk.StreamOptions()) == {}
    with pytest.raises(pi_sdk.ConfigurationError, match="supportsMaxOutputTokens"):
        resolve_responses_compat(model(compat={"supportsMaxOutputTokens": "yes"}))
    no_cap = model(compat={"supportsMaxOutputTokens": False})
    assert "max_output_tokens" not in payload(no_cap)
    assert payload(model(), max_tokens=3)["max_output_tokens"] == 16  # OpenAI's minimum
    strict = model(compat={"supportsStrictMode": True})
    tools = Context(messages=[UserMessage(content="hi")], tools=[pi_sdk.Tool(name="t")])
    assert payload(strict, tools)["tools"][0]["strict"] is False


@pytest.mark.parametrize(
    ("retention", "sent"),
    [
        (None, {"session-id": "sess", "x-client-request-id": "sess"}),
        ("short", {"session-id": "sess", "x-client-request-id": "sess"}),
        ("long", {"session-id": "sess", "x-client-request-id": "sess"}),
        ("none", {}),  # pi-ai 1.6 gives its client no session id without caching
    ],
)
async def test_session_headers_go_only_while_caching_is_on(
    retention: str | None, sent: dict[str, str]
):
    body = sse(added(0, MESSAGE), text_delta(0, "ok"), done(0, message_done("ok")), completed())
    _, message, transport = await run(model(), body, session_id="sess", cache_retention=retention)
    assert message.text == "ok"
    headers = transport.requests[0].headers
    names = ("session-id", "x-client-request-id", "x-session-id")
    assert {name: headers[name] for name in names if name in headers} == sent
    for compat in ({"sessionAffinityFormat": "openrouter"}, {}):
        options = pi_sdk.StreamOptions(session_id="sess", cache_retention=retention)
        found = session_affinity_headers(resolve_responses_compat(model(compat=compat)), options)
        assert bool(found) is bool(sent)
