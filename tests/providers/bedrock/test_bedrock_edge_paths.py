"""Bedrock paths the main suites leave out: credentials that need a refresh, a standard endpoint
of another region, the client's timeouts, a ``StreamOptions.client`` of the wrong type, requests
the replay recognizer declines, a document's format from its mime type or URL, empty turns, and
redacted reasoning in a whole (non-streamed) response."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from botocore.credentials import Credentials
from pi_sdk_bedrock._client import SKIP_AUTH_ENV, TOKEN_ENV, BedrockClient, client_lease
from pi_sdk_bedrock.converse import recognize_request
from pi_sdk_bedrock.converse._documents import document_block
from pi_sdk_bedrock.converse._request import build_request, convert_messages
from pi_sdk_bedrock.converse._response_events import response_as_events

import pi_sdk
from pi_sdk import ConfigurationError, Context, DocumentContent, Model, StreamOptions, UserMessage

_hosts = itertools.count()


# --- signing with credentials that may need a refresh -------------------------------------------


class _Credentials:
    """botocore ``RefreshableCredentials``' shape: ``refresh_needed()`` and a frozen copy."""

    def __init__(self, refresh: bool | None) -> None:
        self.refresh = refresh
        self.threads: list[int] = []
        if refresh is None:
            del self.refresh

    def refresh_needed(self) -> bool:
        return self.refresh

    def get_frozen_credentials(self) -> Credentials:
        self.threads.append(threading.get_ident())
        return Credentials("AKIDREFRESH", "refresh-secret-0123456789", "token-r")


class _Plain:
    """Credentials without ``refresh_needed`` (static keys)."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def get_frozen_credentials(self) -> Credentials:
        self.threads.append(threading.get_ident())
        return Credentials("AKIDPLAIN", "plain-secret-0123456789")


@pytest.mark.parametrize(
    ("credentials", "off_loop", "key"),
    [
        (_Credentials(True), True, "AKIDREFRESH"),
        (_Credentials(False), False, "AKIDREFRESH"),
        (_Plain(), False, "AKIDPLAIN"),
    ],
)
async def test_credentials_that_need_a_refresh_are_frozen_off_the_event_loop(
    credentials: Any, off_loop: bool, key: str
) -> None:
    client = BedrockClient(None, region="eu-central-1", credentials=credentials)
    url = f"{client.base_url}/model/m/converse-stream"
    headers = await client.auth_headers(url, b"{}", {"content-type": "application/json"})
    assert headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={key}/")
    assert "/eu-central-1/bedrock/aws4_request" in headers["authorization"]
    assert "content-type" not in headers  # only what signing added
    [thread] = credentials.threads
    assert (thread != threading.get_ident()) is off_loop


async def test_no_credentials_and_no_token_send_no_auth_headers() -> None:
    client = BedrockClient(None)
    assert await client.auth_headers("https://x/model/m/converse", b"", {}) == {}
    assert client.base_url == "https://bedrock-runtime.us-east-1.amazonaws.com"


# --- which endpoint a cached client calls -------------------------------------------------------


@pytest.fixture
def no_aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(SKIP_AUTH_ENV, "1")


def _model(base_url: str) -> Model:
    return Model(
        id=f"amazon.nova-edge-{next(_hosts)}",
        api="bedrock-converse-stream",
        provider="amazon-bedrock",
        base_url=base_url,
    )


@pytest.mark.parametrize(
    ("base_url", "region", "expected"),
    [
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com",
            "eu-west-3",
            "https://bedrock-runtime.eu-west-3.amazonaws.com",
        ),
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com/",
            "us-east-1",
            "https://bedrock-runtime.us-east-1.amazonaws.com",
        ),
        ("https://bedrock.proxy.example/aws/", "eu-west-3", "https://bedrock.proxy.example/aws"),
        ("", "ap-south-1", "https://bedrock-runtime.ap-south-1.amazonaws.com"),
    ],
)
@pytest.mark.usefixtures("no_aws_env")
async def test_a_standard_endpoint_follows_the_configured_region(
    base_url: str, region: str, expected: str
) -> None:
    options = StreamOptions(provider_options={"region": region})
    async with await client_lease(_model(base_url), options, None) as client:
        assert (client.base_url, client.region) == (expected, region)
        timeout = client.http.timeout
        assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (
            10.0,
            600.0,
            600.0,
            600.0,
        )


async def test_a_client_of_another_type_is_refused_by_name() -> None:
    model = _model("https://bedrock-runtime.us-east-1.amazonaws.com")
    context = Context(messages=[UserMessage(content="hi")])
    message = await pi_sdk.stream(
        model, context, StreamOptions(client=object(), max_retries=0)
    ).result()
    assert message.stop_reason == "error"
    assert message.error_message == (
        "StreamOptions.client for bedrock-converse-stream must be a"
        " pi_sdk_bedrock.converse.BedrockClient, not object"
    )


@pytest.mark.parametrize(
    ("method", "uri"),
    [
        ("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke"),
        ("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model//converse"),
        ("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m"),
        ("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/models/m/converse"),
        ("PUT", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse"),
    ],
)
def test_the_recognizer_declines_what_is_not_a_converse_call(method: str, uri: str) -> None:
    assert recognize_request(method, uri, None) is None


def test_the_recognizer_takes_a_lowercase_post() -> None:
    uri = "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse"
    model = recognize_request("post", uri, None)
    assert model is not None and model.id == "amazon.nova-micro-v1:0"


@pytest.mark.parametrize(
    ("action", "compat"), [("converse-stream", None), ("converse", {"stream": False})]
)
def test_a_recorded_request_for_a_model_the_catalog_lacks_gets_a_thinking_stand_in(
    action: str, compat: dict[str, bool] | None
) -> None:
    # pi-sdk replay calls the recorded endpoint with this model, the same kind of call.
    uri = f"http://proxy.test/br/model/acme.zeta-v9%3A0/{action}"
    assert recognize_request("POST", uri, None) == Model(
        id="acme.zeta-v9:0",
        name="acme.zeta-v9:0",
        api="bedrock-converse-stream",
        provider="amazon-bedrock",
        base_url="http://proxy.test/br",
        reasoning=True,
        input=["text", "image"],
        compat=compat,
    )


# --- documents ----------------------------------------------------------------------------------

FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
EXTENSIONS = {**{fmt: fmt for fmt in FORMATS.values()}, "htm": "html", "markdown": "md"}


@pytest.mark.parametrize(("mime", "fmt"), list(FORMATS.items()))
def test_each_mime_type_names_its_converse_format(mime: str, fmt: str) -> None:
    block = document_block(DocumentContent(data="QUJD", mime_type=f"{mime.upper()}; x=1"), 2)
    assert block == {"document": {"format": fmt, "name": "Document 2", "source": {"bytes": "QUJD"}}}


@pytest.mark.parametrize(("extension", "fmt"), list(EXTENSIONS.items()))
def test_an_s3_document_without_a_mime_type_takes_its_format_from_its_extension(
    extension: str, fmt: str
) -> None:
    url = f"s3://bucket/dir.v2/report.{extension.upper()}"
    block = document_block(DocumentContent(url=url, name="Q3 report"))
    assert block == {
        "document": {"format": fmt, "name": "Q3 report", "source": {"s3Location": {"uri": url}}}
    }


@pytest.mark.parametrize(
    ("document", "named"),
    [
        (DocumentContent(url="s3://bucket/report.bin"), "'s3://bucket/report.bin'"),
        (DocumentContent(url="s3://bucket/report"), "'s3://bucket/report'"),
        (DocumentContent(data="QUJD", mime_type="image/png", name="scan"), "'scan'"),
    ],
)
def test_a_document_of_unknown_format_is_refused_with_the_formats_bedrock_takes(
    document: DocumentContent, named: str
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        document_block(document)
    assert str(refused.value) == (
        f"Bedrock needs the format of document {named}: give its mime_type (one of "
        + ", ".join(FORMATS)
        + ")"
    )


# --- empty turns and redacted reasoning ---------------------------------------------------------


def test_a_turn_with_nothing_to_send_is_skipped_and_the_next_one_kept() -> None:
    model = _model("https://bedrock-runtime.us-east-1.amazonaws.com")
    messages: list[Any] = [
        UserMessage(content=[]),
        UserMessage(content="first"),
        pi_sdk.AssistantMessage(content=[], api=model.api, provider=model.provider, model=model.id),
        UserMessage(content=[]),
        UserMessage(content="second"),
    ]
    body = build_request(model, Context(messages=messages), StreamOptions())
    assert body["messages"] == [
        {"role": "user", "content": [{"text": "first"}, {"text": "second"}]}
    ]


@pytest.mark.parametrize("blob", ["b3BhcXVl", ""])
def test_redacted_reasoning_of_a_whole_response_is_one_redacted_delta(blob: str) -> None:
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"redactedContent": blob, "reasoningText": {"text": "x"}}},
                    {"text": "answer"},
                ],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 2},
    }
    events = list(response_as_events(response))
    deltas = [(kind, data) for kind, data in events if kind == "contentBlockDelta"]
    assert deltas == [
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": blob}}},
        ),
        ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "answer"}}),
    ]


def test_a_system_message_left_in_the_parts_is_not_sent_as_a_turn() -> None:
    """Bedrock has no mid-conversation system messages: given parts read in place, a later
    system message is left out and the conversation after it is kept."""
    from pi_sdk.provider import ContextParts

    model = _model("https://bedrock-runtime.us-east-1.amazonaws.com")
    said = pi_sdk.AssistantMessage(
        content=[pi_sdk.TextContent(text="x")],
        api=model.api,
        provider=model.provider,
        model=model.id,
    )
    context = Context(
        messages=[
            UserMessage(content="a"),
            pi_sdk.SystemMessage(content="a later rule"),
            said,
            UserMessage(content="b"),
        ]
    )
    parts = ContextParts.read(context, model, in_place=True)
    assert any(isinstance(m, pi_sdk.SystemMessage) for m in parts.messages)
    assert convert_messages(context, model, parts=parts) == [
        {"role": "user", "content": [{"text": "a"}]},
        {"role": "assistant", "content": [{"text": "x"}]},
        {"role": "user", "content": [{"text": "b"}]},
    ]


# --- frame limits -------------------------------------------------------------------------------


def test_the_frame_cap_is_24_mib() -> None:
    """AWS caps an event-stream message at 16 MiB of payload; frames up to 24 MiB are read."""
    import struct
    import zlib

    from pi_sdk_bedrock.converse._frames import FrameReader

    from pi_sdk.provider import ProviderError

    cap = 24 * 1024 * 1024
    prelude = struct.pack(">II", cap, 0)
    reader = FrameReader()
    assert reader.feed(prelude + struct.pack(">I", zlib.crc32(prelude))) == []
    assert reader.pending
    prelude = struct.pack(">II", cap + 1, 0)
    with pytest.raises(ProviderError) as refused:
        FrameReader().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))
    assert str(refused.value).endswith(f"impossible lengths (total {cap + 1}, headers 0)")


def test_the_first_64_distinct_headers_blocks_are_parsed_once_and_later_ones_each_time() -> None:
    from pi_sdk_bedrock.converse._frames import FrameReader
    from test_bedrock_frames import encode_frame, encode_headers

    blocks = [encode_headers({":event-type": f"event{i:02}"}) for i in range(80)]
    reader = FrameReader()
    first = reader.feed(b"".join(encode_frame(b) for b in blocks))
    again = reader.feed(b"".join(encode_frame(b) for b in blocks))
    assert [f[1] for f in again] == [f"event{i:02}" for i in range(80)]
    shared = [a[3] is b[3] for a, b in zip(first, again, strict=True)]
    assert shared == [True] * 64 + [False] * 16


def test_a_request_url_is_parsed_once_for_the_last_64_urls_used() -> None:
    from pi_sdk_bedrock._client import _parsed_url  # pyright: ignore[reportPrivateUsage]

    _parsed_url.cache_clear()
    first = _parsed_url("https://b.test/model/m0/converse-stream")
    for i in range(1, 64):
        _parsed_url(f"https://b.test/model/m{i}/converse-stream")
    assert _parsed_url("https://b.test/model/m0/converse-stream") is first  # 64 kept
    for i in range(64, 128):
        _parsed_url(f"https://b.test/model/m{i}/converse-stream")
    again = _parsed_url("https://b.test/model/m0/converse-stream")
    assert again == first and again is not first  # the 65th distinct URL evicted it


# --- the per-request read limit -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("timeout_ms", "idle_timeout_ms", "read_s"),
    [
        (3000, 7000, 7.0),
        (9000, 2000, 9.0),
        (1500, 1500, 1.5),
        (None, 7000, 42.0),
        (3000, None, 42.0),
    ],
)
async def test_the_read_limit_is_the_longer_of_the_first_byte_wait_and_the_idle_limit(
    timeout_ms: int | None, idle_timeout_ms: int | None, read_s: float
) -> None:
    import httpx2
    from _support.conformance import ChunkedTransport, Reply
    from test_bedrock_frames import frame

    body = frame("messageStart", {"role": "assistant"})
    body += frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "ok"}})
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    body += frame("messageStop", {"stopReason": "end_turn"})
    body += frame("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1}})
    headers = {"content-type": "application/vnd.amazon.eventstream"}
    transport = ChunkedTransport([Reply(status=200, body=body, headers=headers)])
    http = httpx2.AsyncClient(transport=transport, timeout=42.0)
    client = BedrockClient(http, region="us-east-1", token="k")
    options = StreamOptions(
        client=client, max_retries=0, timeout_ms=timeout_ms, idle_timeout_ms=idle_timeout_ms
    )
    model = _model("https://bedrock-runtime.us-east-1.amazonaws.com")
    try:
        message = await pi_sdk.stream(
            model, Context(messages=[UserMessage(content="hi")]), options
        ).result()
    finally:
        await http.aclose()
    assert message.text == "ok"
    [request] = transport.requests
    assert request.extensions["timeout"]["read"] == read_s


def test_a_whole_response_s_tool_input_streams_as_its_own_characters() -> None:
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"toolUse": {"toolUseId": "t1", "name": "w", "input": {"city": "Zürich"}}}
                ],
            }
        },
        "stopReason": "tool_use",
    }
    deltas = [data for kind, data in response_as_events(response) if kind == "contentBlockDelta"]
    assert deltas == [
        {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"city": "Zürich"}'}}}
    ]


async def test_the_request_body_is_compact_utf8_json() -> None:
    import httpx2
    from _support.conformance import ChunkedTransport, Reply

    transport = ChunkedTransport([Reply(status=400, body=b"{}", headers={})])
    http = httpx2.AsyncClient(transport=transport)
    client = BedrockClient(http, region="us-east-1", token="k")
    model = _model("https://bedrock-runtime.us-east-1.amazonaws.com")
    options = StreamOptions(client=client, max_retries=0)
    try:
        await pi_sdk.stream(
            model, Context(messages=[UserMessage(content="Grüße, 東京")]), options
        ).result()
    finally:
        await http.aclose()
    [request] = transport.requests
    sent = '"messages":[{"role":"user","content":[{"text":"Grüße, 東京"}]}]'
    assert sent.encode("utf-8") in request.content


# --- Nova's server tool blocks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error"),
    [(None, None), ("success", None), ("error", "error"), ("failed", "failed")],
)
def test_a_server_result_s_status_other_than_success_is_its_error(
    status: str | None, error: str | None
) -> None:
    from pi_sdk_bedrock.converse._server_tools import server_block

    fields: dict[str, Any] = {"toolUseId": "t1", "type": "nova_code_interpreter_result"}
    if status is not None:
        fields["status"] = status
    block = server_block([{"toolResult": {**fields, "content": [{"text": "a"}]}}])
    assert isinstance(block, pi_sdk.ServerToolResult)
    assert (block.tool_call_id, block.kind, block.content, block.error) == (
        "t1",
        "nova_code_interpreter_result",
        [{"text": "a"}],
        error,
    )


def test_a_streamed_server_result_gathers_its_content_after_the_start_s() -> None:
    from pi_sdk_bedrock.converse._server_tools import server_block

    start = {"toolResult": {"toolUseId": "t2", "content": [{"text": "a"}]}}
    block = server_block([start, {"text": "b"}, {"json": {"c": 1}}])
    assert isinstance(block, pi_sdk.ServerToolResult)
    assert block.kind == "toolResult" and block.error is None
    assert block.content == [{"text": "a"}, {"text": "b"}, {"json": {"c": 1}}]
    assert block.raw == {"toolResult": {"toolUseId": "t2", "content": block.content}}
    assert start["toolResult"]["content"] == [{"text": "a"}], "the start is not changed"
    bare = server_block([{"toolResult": {}}, {"text": "x"}])
    assert isinstance(bare, pi_sdk.ServerToolResult)
    assert (bare.tool_call_id, bare.content) == ("", [{"text": "x"}])


def test_a_server_call_without_input_fragments_has_no_arguments() -> None:
    from pi_sdk_bedrock.converse._server_tools import server_block

    start = {
        "toolUse": {"toolUseId": "t3", "name": "nova_code_interpreter", "type": "server_tool_use"}
    }
    block = server_block([start])
    assert isinstance(block, pi_sdk.ServerToolCall)
    assert (block.id, block.name, block.arguments) == ("t3", "nova_code_interpreter", {})
    assert block.raw == {"toolUse": {**start["toolUse"], "input": {}}}
    assert "input" not in start["toolUse"]


@pytest.mark.parametrize("text", ["[1]", "nope", "[" + "7, " * 120 + "7]"])
def test_a_server_call_whose_input_is_not_an_object_is_quoted(text: str) -> None:
    from pi_sdk_bedrock.converse._server_tools import server_block

    from pi_sdk.provider import ProviderError

    with pytest.raises(ProviderError) as refused:
        server_block([{"toolUse": {"toolUseId": "t4"}}, text[:3], text[3:]])
    assert (
        str(refused.value) == f"the server tool call's input is not a JSON object: {text[:200]!r}"
    )


@pytest.mark.parametrize(
    ("model_id", "tools"),
    [
        ("amazon.nova-pro-v1:0", {"web_search", "code_execution"}),
        ("us.Amazon.NOVA-2-lite", {"web_search", "code_execution"}),
        ("anthropic.claude-x", set()),
    ],
)
def test_only_nova_models_have_system_tools(model_id: str, tools: set[str]) -> None:
    from pi_sdk_bedrock.converse._server_tools import server_tool_definitions

    model = Model(id=model_id, api="bedrock-converse-stream", provider="amazon-bedrock")
    assert set(server_tool_definitions(model)) == tools
