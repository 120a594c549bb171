"""Google paths the main suites leave out: the aiohttp response of a caller's client, candidates
that are not candidate 0, an image part without its fields, the Gemini API base URL taken from a
caller's client, a third-party publisher's model recorded on Vertex AI, a thinking level that
clamps to ``off``, the order of function responses in a result turn, and the public tool-call id
rule."""

from __future__ import annotations

import itertools
import re
from types import SimpleNamespace
from typing import Any

import pi_sdk_google
import pytest
from _support.messages import reply
from pi_sdk_google._shared_decode import (
    GeminiDecoder,
    _first_candidate,  # pyright: ignore[reportPrivateUsage]
)
from pi_sdk_google._shared_thinking import thinking_config
from pi_sdk_google._transport import RawResponse
from pi_sdk_google.generative_ai import _request as gemini_request

import pi_sdk
from pi_sdk import Model, StreamOptions, TextContent, ToolCall, UserMessage
from pi_sdk.provider import MessageBuilder, ProviderError, sanitize_tool_call_id

MODEL = Model(id="gemini-2.5-flash", api="google-generative-ai", provider="google")

# --- the response of an aiohttp client ---------------------------------------------------------


class _AiohttpContent:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def iter_any(self) -> Any:
        for chunk in self.chunks:
            yield chunk


class _AiohttpResponse:
    """What aiohttp's ``ClientResponse`` offers: ``content.iter_any()`` and ``release()``."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.content = _AiohttpContent(chunks)
        self.released = 0

    def release(self) -> None:
        self.released += 1


async def test_an_aiohttp_response_is_read_whole_and_released() -> None:
    response = _AiohttpResponse([b"data: {", b"}\n\n", b""])
    raw = RawResponse(response)
    assert [chunk async for chunk in raw.aiter_bytes()] == [b"data: {", b"}\n\n", b""]
    assert dict(raw.headers) == {}
    assert response.released == 0
    await raw.aclose()
    assert response.released == 1


# --- candidates ---------------------------------------------------------------------------------


def _feed(*chunks: dict[str, Any]) -> tuple[MessageBuilder, GeminiDecoder]:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = GeminiDecoder(builder)
    for chunk in chunks:
        decoder.feed(chunk)
    return builder, decoder


@pytest.mark.parametrize(
    "candidates",
    [
        {"index": 0, "content": {"parts": [{"text": "x"}]}},  # not a list
        [{"index": 1, "content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}],
        ["text", {"index": 2, "content": {"parts": [{"text": "x"}]}}],
        [],
    ],
)
def test_a_reply_without_candidate_zero_has_no_candidates(candidates: Any) -> None:
    builder, decoder = _feed({"candidates": candidates})
    assert builder.message.content == [] and not decoder.terminal
    with pytest.raises(ProviderError, match="without candidates"):
        list(decoder.feed_document([]) or decoder.finish(saw_done=True))


def test_the_first_candidate_is_the_one_with_index_zero() -> None:
    first = _first_candidate  # pyright: ignore[reportPrivateUsage]
    zero = {"content": {}}
    assert first({"index": 0}) is None
    assert first(None) is None
    assert first(["x", {"index": 1}, zero, {"index": 0}]) is zero
    assert first([{"index": 1}, {"index": 2}]) is None
    builder, _ = _feed(
        {"candidates": ["x", {"index": 0, "content": {"parts": [{"text": "zero"}]}}]}
    )
    assert builder.message.content == [TextContent(text="zero")]


@pytest.mark.parametrize(
    ("inline", "fields"),
    [
        ({}, "none"),
        ({"mimeType": "image/png"}, "mimeType"),
        ({"data": "AAAA"}, "data"),
        ({"data": 7, "mimeType": "image/png", "extra": 1}, "data, extra, mimeType"),
        ({"data": "AAAA", "mimeType": None}, "data, mimeType"),
    ],
)
def test_an_image_part_without_data_or_mime_type_is_refused_naming_its_fields(
    inline: dict[str, Any], fields: str
) -> None:
    with pytest.raises(ProviderError) as refused:
        _feed({"candidates": [{"content": {"parts": [{"inlineData": inline}]}}]})
    assert str(refused.value) == (
        f"Gemini sent an inlineData part without data or mimeType ({fields})"
    )


# --- base URLs and recorded models --------------------------------------------------------------


def _client(base_url: str | None, api_version: str | None = None) -> Any:
    options = SimpleNamespace(base_url=base_url, api_version=api_version)
    return SimpleNamespace(_api_client=SimpleNamespace(_http_options=options))


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        (None, gemini_request.DEFAULT_BASE_URL),
        (SimpleNamespace(), gemini_request.DEFAULT_BASE_URL),
        (_client(None, "v1"), gemini_request.DEFAULT_BASE_URL),
        (_client("", "v1"), gemini_request.DEFAULT_BASE_URL),
        (_client("http://proxy:8080/g/", "v1alpha"), "http://proxy:8080/g/v1alpha"),
        (_client("http://proxy:8080/g/"), "http://proxy:8080/g"),
        (_client("http://proxy:8080/g", ""), "http://proxy:8080/g"),
    ],
)
def test_an_empty_base_url_takes_the_caller_s_client_s_url_and_version(
    client: Any, expected: str
) -> None:
    assert gemini_request.base_url(MODEL, client) == expected
    own = MODEL.model_copy(update={"base_url": "https://own.example/v1/"})
    assert gemini_request.base_url(own, client) == "https://own.example/v1"


@pytest.mark.parametrize("publisher", ["anthropic", "meta", "Google"])
def test_a_third_party_publisher_s_recorded_model_keeps_its_publisher(publisher: str) -> None:
    uri = (
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
        f"publishers/{publisher}/models/some-model:streamGenerateContent?alt=sse"
    )
    model = pi_sdk_google.recognize_vertex("POST", uri, None)
    assert model is not None
    assert model.id == f"publishers/{publisher}/models/some-model"
    assert model.base_url == (
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5"
    )
    google = pi_sdk_google.recognize_vertex("POST", uri.replace(publisher, "google"), None)
    assert google is not None and google.id == "some-model"


# --- thinking -----------------------------------------------------------------------------------

NO_LEVELS = {"minimal": None, "low": None, "medium": None, "high": None}


@pytest.mark.parametrize(
    ("model_id", "off"),
    [
        ("gemini-2.5-pro", {"thinkingBudget": 128}),
        ("gemini-2.5-flash", {"thinkingBudget": 0}),
        ("gemini-3-pro-preview", {"thinkingBudget": 0}),
    ],
)
@pytest.mark.parametrize("level", ["minimal", "low", "medium", "high"])
def test_a_level_that_clamps_to_off_turns_thinking_off(
    model_id: str, off: dict[str, Any], level: str
) -> None:
    model = Model(
        id=model_id,
        api="google-generative-ai",
        provider="google",
        reasoning=True,
        thinking_level_map=NO_LEVELS,
    )
    assert thinking_config(model, StreamOptions(reasoning=level)) == off  # pyright: ignore[reportArgumentType]


# --- function responses follow their calls' order -----------------------------------------------


def _result(call_id: str, text: str) -> pi_sdk.ToolResultMessage:
    return pi_sdk.ToolResultMessage(
        tool_call_id=call_id, tool_name=f"tool_{call_id}", content=[TextContent(text=text)]
    )


@pytest.mark.parametrize("model_id", ["gemini-2.5-flash", "gemini-3-flash-preview"])
@pytest.mark.parametrize("finished", list(itertools.permutations(["a", "b", "c"])))
def test_function_responses_follow_the_calls_order_whatever_order_results_came_in(
    model_id: str, finished: tuple[str, ...]
) -> None:
    model = Model(id=model_id, api="google-generative-ai", provider="google", reasoning=True)
    calls = [ToolCall(id=i, name=f"tool_{i}", arguments={"n": i}) for i in ("a", "b", "c")]
    messages: list[Any] = [UserMessage(content="go"), reply(model, *calls)]
    messages += [_result(i, f"out {i}") for i in finished]
    messages += [
        reply(model, ToolCall(id="d", name="tool_d", arguments={})),
        _result("d", "out d"),
    ]
    body = pi_sdk_google._shared_request.build_request(  # pyright: ignore[reportPrivateUsage]
        model, pi_sdk.Context(messages=messages), StreamOptions()
    )
    contents = body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user", "model", "user"]
    responses = [p["functionResponse"] for p in contents[2]["parts"]]
    assert [(r["name"], r["response"]) for r in responses] == [
        ("tool_a", {"output": "out a"}),
        ("tool_b", {"output": "out b"}),
        ("tool_c", {"output": "out c"}),
    ]
    assert [p["functionResponse"]["response"] for p in contents[4]["parts"]] == [
        {"output": "out d"}
    ]


# --- the public tool-call id rule ---------------------------------------------------------------


@pytest.mark.parametrize("tool_call_id", ["call_1|fc/2", "a" * 70, "ok-id_9", "x" * 64])
def test_the_package_s_tool_call_id_rule_is_the_wire_rule(tool_call_id: str) -> None:
    other = Model(id="gpt-5", api="openai-responses", provider="openai")
    source = reply(other, ToolCall(id=tool_call_id, name="f", arguments={}))
    made = pi_sdk_google.normalize_tool_call_id(tool_call_id, MODEL, source)
    assert made == sanitize_tool_call_id(tool_call_id, max_len=64)
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", made)
    valid = re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool_call_id) is not None
    assert (made == tool_call_id) is valid


# --- the document size limit --------------------------------------------------------------------

LIMIT = 20 * 1024 * 1024  # Gemini document understanding: inline data at most 20 MB


def test_a_document_over_20_mib_is_refused_naming_the_limit() -> None:
    import base64

    from pi_sdk import ConfigurationError, DocumentContent

    size = LIMIT + 1
    data = base64.b64encode(b"%PDF-1.4\n" + b"\0" * (size - 9)).decode()
    document = DocumentContent(data=data, mime_type="application/pdf", name="big.pdf")
    context = pi_sdk.Context(messages=[UserMessage(content=[TextContent(text="r"), document])])
    for api in ("google-generative-ai", "google-vertex"):
        vision = MODEL.model_copy(update={"input": ["text", "image"], "api": api})
        with pytest.raises(ConfigurationError) as refused:
            pi_sdk_google._shared_request.build_request(vision, context, StreamOptions())  # pyright: ignore[reportPrivateUsage]
        assert f"is {size} bytes; " in str(refused.value)
        assert str(refused.value).endswith(
            f" takes at most {LIMIT} bytes per document"
            " (Gemini document understanding: inline data at most 20 MB per request)"
        )


# --- the request sent ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("timeout_ms", "seconds"), [(2500, 2.5), (1, 0.001), (None, None), (0, None)]
)
async def test_the_request_carries_the_client_s_timeout_in_seconds_headers_and_utf8_json(
    timeout_ms: int | None, seconds: float | None
) -> None:
    from pi_sdk_google import _transport

    sent: list[Any] = []
    stream = _AiohttpResponse([b"x"])

    async def once(request: Any, stream_: bool = False, **kwargs: Any) -> Any:
        sent.append(request)
        return SimpleNamespace(response_stream=stream)

    options = SimpleNamespace(
        headers={"x-goog-api-client": "sdk", "h": "client"},
        timeout=timeout_ms,
        retry_options=SimpleNamespace(attempts=1),
    )
    client = SimpleNamespace(
        _api_client=SimpleNamespace(_http_options=options, _async_request_once=once)
    )
    raw = await _transport.send(client, "https://g.test/m", {"text": "héllo"}, {"h": "call"})
    [request] = sent
    assert request.timeout == seconds
    assert request.headers == {"x-goog-api-client": "sdk", "h": "call"}
    assert options.headers == {"x-goog-api-client": "sdk", "h": "client"}, "not changed"
    assert request.data == '{"text": "héllo"}'.encode()
    assert (request.method, request.url) == ("post", "https://g.test/m")
    await raw.aclose()
    assert stream.released == 1


# --- ids of calls that came without one ---------------------------------------------------------


def test_calls_without_a_response_id_share_one_random_stem_counted_from_one() -> None:
    calls = [{"functionCall": {"name": "f"}}, {"functionCall": {"name": "g", "id": ""}}]
    builder, _ = _feed({"candidates": [{"content": {"parts": calls}}]})
    ids = [block.id for block in builder.message.content]  # type: ignore[union-attr]
    assert len(ids) == 2
    for n, call_id in enumerate(ids, 1):
        assert re.fullmatch(rf"gemini_call_[0-9a-f]{{16}}_{n}", call_id), call_id
    assert ids[0][:-2] == ids[1][:-2]
    again, _ = _feed({"candidates": [{"content": {"parts": calls}}]})
    assert again.message.content[0].id != ids[0]  # type: ignore[union-attr]


# --- grounding spans at their bounds ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "segment", "span"),
    [
        ("abc", {"startIndex": 0, "endIndex": 2}, (0, 2)),  # from the first byte
        ("abc", {"endIndex": 2}, (0, 2)),  # no start: 0
        ("abc", {"startIndex": 1, "endIndex": 3}, (1, 3)),  # to the last byte
        ("abc", {"startIndex": 1, "endIndex": 1, "text": ""}, (1, 1)),  # empty
        ("abc", {"startIndex": 1, "endIndex": 4}, None),  # past the end
        ("abc", {"startIndex": -1, "endIndex": 2}, None),  # before the start
        ("abc", {"startIndex": 2, "endIndex": 1}, None),  # reversed
        ("abc", {"startIndex": 1}, None),  # no end
        ("abc", {"startIndex": 7, "endIndex": 9, "text": "ab"}, (0, 2)),  # text at the start
        ("xabc", {"startIndex": 0, "endIndex": 1, "text": "bc"}, (2, 4)),  # offsets disagree
        ("abc", {"startIndex": 7, "endIndex": 9, "text": "zz"}, None),
        ("abc", {"startIndex": 7, "endIndex": 9, "text": ""}, None),  # empty text: no search
        ("abc", {"text": ""}, None),
        ("abc", {"text": 5}, None),  # text that is not text: no search
        ("abc", {"startIndex": True, "endIndex": 2}, (0, 2)),  # a bool is no index
        ("héllo", {"startIndex": 3, "endIndex": 6}, (2, 5)),  # bytes to characters
    ],
)
def test_a_segment_s_span_at_the_bounds_of_its_text(
    text: str, segment: dict[str, Any], span: tuple[int, int] | None
) -> None:
    from pi_sdk_google._shared_grounding import _span  # pyright: ignore[reportPrivateUsage]

    assert _span(text, segment) == span


@pytest.mark.parametrize(("index", "cited"), [(0, "A"), (1, "B"), (2, None), (-1, None)])
def test_a_chunk_index_must_name_one_of_the_chunks(index: int, cited: str | None) -> None:
    from pi_sdk_google._shared_grounding import apply_grounding

    block = TextContent(text="text")
    chunks = [{"web": {"uri": "https://a.example", "title": t}} for t in ("A", "B")]
    support = {"segment": {"startIndex": 0, "endIndex": 4}, "groundingChunkIndices": [index]}
    apply_grounding({"groundingChunks": chunks, "groundingSupports": [support]}, [block])
    spans = [(c.title, c.start_index) for c in block.citations or []]
    # the chunk a support names gets its span; the others are cited without one
    assert spans == [(t, 0 if t == cited else None) for t in ["A", "B"] if t == cited] + [
        (t, None) for t in ["A", "B"] if t != cited
    ]


# --- server tool parts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        (
            {"executableCode": {"id": "e1", "language": "PYTHON", "code": "print(1)", "x": 1}},
            ("call", "e1", "code_execution", {"language": "PYTHON", "code": "print(1)"}),
        ),
        ({"executableCode": "odd"}, ("call", "", "code_execution", {})),
        (
            {"toolCall": {"id": "t1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"q": "x"}}},
            ("call", "t1", "GOOGLE_SEARCH_WEB", {"q": "x"}),
        ),
        ({"toolCall": {"args": ["x"]}}, ("call", "", "tool", {})),
        (
            {"codeExecutionResult": {"id": "e1", "outcome": "OUTCOME_OK", "output": "1\n"}},
            (
                "result",
                "e1",
                "codeExecutionResult",
                {"outcome": "OUTCOME_OK", "output": "1\n"},
                None,
            ),
        ),
        (
            {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "boom"}},
            (
                "result",
                "",
                "codeExecutionResult",
                {"outcome": "OUTCOME_FAILED", "output": "boom"},
                "OUTCOME_FAILED",
            ),
        ),
        (
            {"codeExecutionResult": {"outcome": "OUTCOME_DEADLINE_EXCEEDED"}},
            (
                "result",
                "",
                "codeExecutionResult",
                {"outcome": "OUTCOME_DEADLINE_EXCEEDED"},
                "OUTCOME_DEADLINE_EXCEEDED",
            ),
        ),
        (
            {"toolResponse": {"id": "t1", "toolType": "URL_CONTEXT", "response": {"ok": 1}}},
            ("result", "t1", "URL_CONTEXT", {"ok": 1}, None),
        ),
        ({"toolResponse": {}}, ("result", "", "toolResponse", None, None)),
    ],
)
def test_each_server_tool_part_is_a_whole_block(
    part: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    from pi_sdk_google._shared_server_tools import server_part_block

    [field] = part
    block = server_part_block({**part, "thoughtSignature": "c2ln"}, field)
    if expected[0] == "call":
        assert isinstance(block, pi_sdk.ServerToolCall)
        assert (block.id, block.name, block.arguments) == expected[1:]
    else:
        assert isinstance(block, pi_sdk.ServerToolResult)
        assert (block.tool_call_id, block.kind, block.content, block.error) == expected[1:]
    assert block.raw == {**part, "thoughtSignature": "c2ln"}


@pytest.mark.parametrize(
    ("model_id", "reasoning"),
    [
        ("gemini-3.6-flahs", True),  # Gemini 3 and later think
        ("gemini-2.5-flahs", True),  # so does 2.5
        ("gemini-2.0-flahs", False),
        ("gemma-3-27b-itt", False),
    ],
)
def test_a_recorded_model_the_catalog_lacks_thinks_if_its_family_does(
    model_id: str, reasoning: bool
) -> None:
    uri = f"https://generativelanguage.googleapis.com/v1beta/models/{model_id}:generateContent"
    model = pi_sdk_google.recognize_generative_ai("post", uri, None)
    assert model is not None
    assert (model.id, model.reasoning, model.input) == (model_id, reasoning, ["text", "image"])
