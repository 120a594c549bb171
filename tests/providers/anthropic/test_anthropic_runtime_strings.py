"""Vendor and user strings as they really arrive: decoded from JSON or built at run time.

A value read from a stream, a catalog file, a proxy request or a form is equal to the literal
the adapter compares it with but never the same object (the literals of a test are interned),
so each rule here is shown with such a value: the auth mode of a GitHub Copilot model, the
session-affinity header, Opus's ``xhigh`` effort, the strict-tool schema keywords and the
block types of a decoded reply.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from typing import Any

import pytest
from _support.strings import built
from pi_sdk_anthropic import messages
from pi_sdk_anthropic._client import build_headers
from pi_sdk_anthropic.messages._compat import effort_of
from pi_sdk_anthropic.messages._decode import Decoder
from pi_sdk_anthropic.messages._tools import strict_rejects

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, TextContent, UserMessage
from pi_sdk.provider import MessageBuilder

BASE = "https://api.anthropic.test"


def model(provider: str = "anthropic", **fields: Any) -> Model:
    return Model(
        id="claude-sonnet-4-5",
        api="anthropic-messages",
        provider=provider,
        base_url=BASE,
        **fields,
    )


def decoded(value: Any) -> Any:
    """``value`` as the read loop hands it over: decoded from its JSON text."""
    return json.loads(json.dumps(value))


# --- auth mode ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "api_key", "bearer", "sent_name"),
    [
        ("anthropic", "sk-ant-api03-key", False, "read"),
        ("anthropic", "sk-ant-oat01-token", True, "Read"),  # Claude Code OAuth: its tool names
        ("github-copilot", "ghu_token", True, "read"),
        ("github-copilot", "sk-ant-oat01-token", True, "read"),  # bearer, yet not Claude Code
    ],
)
async def test_the_auth_mode_and_tool_names_follow_the_key_and_a_catalog_provider(
    monkeypatch: pytest.MonkeyPatch, provider: str, api_key: str, bearer: bool, sent_name: str
) -> None:
    leases: list[bool] = []

    async def lease(model: Model, key: str, *, bearer: bool) -> Any:
        leases.append(bearer)
        return nullcontext(None)

    monkeypatch.setattr(messages, "client_lease", lease)
    loaded = Model.model_validate(decoded(model(built(provider)).model_dump(by_alias=True)))
    context = Context(messages=[UserMessage(content="hi")], tools=[pi_sdk.Tool(name="read")])
    call = await messages.call_anthropic_messages(loaded, context, StreamOptions(api_key=api_key))
    assert leases == [bearer]
    assert [tool["name"] for tool in call.build_payload(BASE)["tools"]] == [sent_name]


# --- session affinity ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "compat", "retention", "headers"),
    [
        ("anthropic", {"sendSessionAffinityHeaders": True}, None, {"x-session-affinity": "s-1"}),
        (
            "anthropic",
            {"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openrouter"},
            None,
            {"x-session-id": "s-1"},
        ),
        ("openrouter", None, None, {"x-session-id": "s-1"}),  # on, as openrouter, by default
        ("openrouter", None, "short", {"x-session-id": "s-1"}),
        ("openrouter", None, "none", {}),  # no prompt cache: nothing to keep a session on
        ("anthropic", {"sendSessionAffinityHeaders": True}, "none", {}),
        ("anthropic", None, None, {}),
    ],
)
def test_session_affinity_headers_from_a_loaded_model_and_options(
    provider: str, compat: dict[str, Any] | None, retention: str | None, headers: dict[str, str]
) -> None:
    loaded = Model.model_validate(
        decoded(model(built(provider), compat=compat).model_dump(by_alias=True))
    )
    options = StreamOptions(
        session_id="s-1", cache_retention=None if retention is None else built(retention)
    )
    sent = build_headers(loaded, options, "key")
    assert {k: v for k, v in sent.items() if k.startswith("x-session")} == headers


# --- effort -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "level", "effort"),
    [
        ("claude-opus-4-6", "xhigh", "max"),  # a hand-made Opus model without a level map
        ("claude-sonnet-4-6", "xhigh", "high"),
        ("claude-opus-4-6", "high", "high"),
        ("claude-opus-4-6", "low", "low"),
    ],
)
def test_the_effort_of_a_level_read_from_a_request(model_id: str, level: str, effort: str) -> None:
    assert effort_of(model().model_copy(update={"id": model_id}), built(level)) == effort


# --- strict tools -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "rejected"),
    [
        ("minItems", 0, False),
        ("minItems", 1, False),
        ("minItems", 2, True),
        ("format", "date-time", False),
        ("format", "phone", True),
        ("format", 3, True),
        ("maxItems", 3, True),
        ("description", "x", False),
    ],
)
def test_strict_rejects_the_keywords_of_a_schema_read_from_json(
    key: str, value: Any, rejected: bool
) -> None:
    ((decoded_key, decoded_value),) = decoded({key: value}).items()
    assert strict_rejects(decoded_key, decoded_value) is rejected


# --- block types of a decoded reply -------------------------------------------------------------


def reply_content(*blocks: dict[str, Any]) -> list[Any]:
    """The content of a reply streaming ``blocks`` (each started and stopped), JSON-decoded."""
    builder = MessageBuilder(model())
    decoder = Decoder(builder, Context(messages=[]), oauth=False)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"id": "m", "usage": {}}}]
    for index, block in enumerate(blocks):
        events += [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    for event in events:
        decoder.feed(decoded(event))
    decoder.finish(saw_done=False)
    return builder.message.content


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        ({"type": "tool_result", "tool_use_id": "t1", "content": "x"}, None),  # not a server's
        ({"type": "mcp_tool_result", "tool_use_id": "m1", "content": []}, "mcp_tool_result"),
        (
            {"type": "web_search_tool_result", "tool_use_id": "w1", "content": []},
            "web_search_tool_result",
        ),
        ({"type": "image", "source": {}}, None),
    ],
)
def test_which_decoded_result_blocks_are_a_server_tools(
    block: dict[str, Any], kind: str | None
) -> None:
    content = reply_content({"type": "text", "text": "a"}, block)
    assert content[0] == TextContent(text="a")
    if kind is None:
        assert len(content) == 1
    else:
        (result,) = content[1:]
        assert (type(result).__name__, result.tool_call_id, result.raw) == (
            "ServerToolResult",
            block["tool_use_id"],
            block,
        )


def test_a_provider_set_on_a_copy_still_picks_openrouters_affinity_header() -> None:
    # model_copy(update=...) does not validate: the provider stays the caller's own string
    router = model().model_copy(update={"provider": built("openrouter")})
    assert build_headers(router, StreamOptions(session_id="s-1"), "key")["x-session-id"] == "s-1"
