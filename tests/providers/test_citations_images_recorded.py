"""Citations and output images on real recordings (``../shared/conformance-next``).

What each recorded reply holds besides its text (``future.response``: the Responses
``annotations``, the Gemini ``grounding_metadata``, the ``inline_images`` / the image generation
result and its hash) is what the final message carries: citations on the text blocks, at the
recorded positions, and :class:`pi_sdk.ImageContent` blocks with the recorded bytes. Replayed to
the same model, an annotated Responses message goes back as the recorded follow-up sent it
(OpenAI answered 200); a Gemini image goes back as its ``inlineData`` part.
"""

from __future__ import annotations

import base64
import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from _support.conformance import (
    Case,
    future_of,
    model_for,
    next_cases,
    reply_before,
    run_interaction,
    skip_without_next,
)
from pi_sdk_google._shared_request import build_request as gemini_request
from pi_sdk_openai.responses import build_payload

import pi_sdk
from pi_sdk import Context, ImageContent, StreamOptions, TextContent, UserMessage
from pi_sdk._testing.replay import load_cassette

RESPONSES = next_cases("openai-responses", "servertool_")
ANNOTATED = [c for c in RESPONSES if future_of(c)["response"].get("annotations")]
GROUNDED = [
    c
    for api in ("google-generative-ai", "google-vertex")
    for c in next_cases(api, "servertool_")
    if future_of(c)["response"].get("grounding_metadata")
]
IMAGES = [
    *next_cases("google-vertex", "image_output_"),
    *[c for c in RESPONSES if "image_generation" in c.name],
]


def test_the_recordings_are_there():
    skip_without_next(RESPONSES)
    assert len(ANNOTATED) >= 4 and len(GROUNDED) >= 4 and len(IMAGES) == 2


def _cited(message: pi_sdk.AssistantMessage) -> list[tuple[TextContent, pi_sdk.Citation]]:
    return [
        (b, c) for b in message.content if isinstance(b, TextContent) for c in b.citations or ()
    ]


@pytest.mark.parametrize("case", ANNOTATED, ids=[c.id for c in ANNOTATED])
async def test_responses_annotations_are_citations_at_their_place(case: Case):
    message = (await run_interaction(case)).message
    wanted = future_of(case)["response"]["annotations"]
    cited = _cited(message)
    assert [c.raw for _, c in cited] == wanted  # each annotation whole, as it came
    for (block, citation), annotation in zip(cited, wanted, strict=True):
        assert citation.type == annotation["type"]
        assert citation.url == annotation.get("url")
        assert citation.title == annotation.get("title") or annotation.get("filename")
        start = annotation.get("start_index", annotation.get("index"))
        assert (citation.start_index, citation.end_index) == (
            start,
            annotation.get("end_index", start),
        )
        if citation.url:  # the cited span is the markdown link to the source
            span = block.text[citation.start_index : citation.end_index]
            assert citation.url in span


CHAT_ANNOTATED = next_cases("openai-completions", "servertool_")


@pytest.mark.parametrize("case", CHAT_ANNOTATED, ids=[c.id for c in CHAT_ANNOTATED])
async def test_openrouter_annotations_before_the_text_are_its_citations(case: Case):
    message = (await run_interaction(case)).message
    wanted = future_of(case)["response"]["annotations"]
    (block,) = [b for b in message.content if isinstance(b, TextContent)]
    got = [
        (c.type, c.url, c.title or "", c.start_index, c.end_index) for c in block.citations or ()
    ]
    assert got == [
        (a["type"], a["url"], a["title"], a["start_index"], a["end_index"]) for a in wanted
    ]
    assert all(
        c.cited_text and c.raw and c.raw["url_citation"]["url"] == c.url
        for c in block.citations or ()
    )


FOLLOW_UPS = [c for c in ANNOTATED if c.index > 0]


@pytest.mark.parametrize("case", FOLLOW_UPS, ids=[c.id for c in FOLLOW_UPS])
async def test_the_annotated_message_goes_back_as_recorded(case: Case):
    reply, model, body = await reply_before(case)
    (recorded,) = [i for i in body["input"] if i.get("type") == "message"]
    context = Context(messages=[UserMessage(content=body["input"][0]["content"]), reply])
    ours = build_payload(model, context, StreamOptions(api_key="test-key"))
    (sent,) = [i for i in ours["input"] if i.get("type") == "message"]
    for part in recorded["content"]:
        part.pop("logprobs", None)  # (written by the recording client, not by the model)
    assert sent == recorded

    other = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    moved = pi_sdk.provider.transform_messages([reply], other)
    (search, answer, sources) = moved[0].content  # (the search call becomes text too)
    assert isinstance(search, TextContent) and search.text.startswith("[server tool web_search")
    assert isinstance(answer, TextContent) and isinstance(sources, TextContent)
    assert answer.citations is None and sources.text.startswith("[sources cited]")
    for _, citation in _cited(reply):
        assert f"- {citation.title} {citation.url}" in sources.text


def _segment(support: dict[str, Any]) -> str:
    text = support["segment_text"]
    return text.split("... (", 1)[0] if text.endswith(" chars)") else text


@pytest.mark.parametrize("case", GROUNDED, ids=[c.id for c in GROUNDED])
async def test_grounding_becomes_citations_on_the_supported_text(case: Case):
    message = (await run_interaction(case)).message
    grounding = future_of(case)["response"]["grounding_metadata"]
    chunks = grounding["grounding_chunks"]
    cited = _cited(message)
    supported = {i for s in grounding["grounding_supports"] for i in s["chunk_indices"]}
    pairs = sum(len(s["chunk_indices"]) for s in grounding["grounding_supports"])
    assert len(cited) == pairs + len(set(range(len(chunks))) - supported)
    spans = iter(cited)
    for support in grounding["grounding_supports"]:
        for index in support["chunk_indices"]:
            block, citation = next(spans)
            source = next(iter(chunks[index].values()))
            assert citation.url == source.get("uri")
            assert citation.title == source.get("title") or source.get("fileSearchStore")
            assert citation.cited_text == source.get("text")
            assert citation.start_index is not None and citation.end_index is not None
            span = block.text[citation.start_index : citation.end_index]
            assert span.startswith(_segment(support))


@pytest.mark.parametrize("case", IMAGES, ids=[c.id for c in IMAGES])
async def test_an_image_the_model_made_is_an_image_block(case: Case):
    run = await run_interaction(case)
    message = run.message
    (image,) = [b for b in message.content if isinstance(b, ImageContent)]
    response = future_of(case)["response"]
    if case.api == "openai-responses":
        (item,) = response["server_items"]
        size, digest, kind = item["result_base64_bytes"], item["result_sha256"], "image/jpeg"
    else:
        (wanted,) = response["inline_images"]
        size, digest, kind = wanted["bytes"], wanted["sha256"], wanted["mime_type"]
    data = base64.b64decode(image.data)
    assert (len(data), hashlib.sha256(data).hexdigest(), image.mime_type) == (size, digest, kind)
    (event,) = [e for e in run.events if e.type == "image"]
    assert event.image is image and message.content[event.content_index] is image


async def test_a_gemini_image_goes_back_to_the_same_model_as_its_part():
    case = next((c for c in IMAGES if c.api == "google-vertex"), None)
    skip_without_next(case)
    reply = (await run_interaction(case)).message
    (image,) = [b for b in reply.content if isinstance(b, ImageContent)]
    signed = reply.model_copy(
        update={"content": [image.model_copy(update={"thought_signature": "c2lnbmVk"})]}
    )
    model = model_for(case.api, load_cassette(case.cassette)[case.index])  # the recorded one
    context = Context(messages=[UserMessage(content="an axolotl"), signed])
    sent = gemini_request(model, context, StreamOptions())["contents"][1]
    assert sent == {
        "role": "model",
        "parts": [
            {
                "inlineData": {"mimeType": "image/jpeg", "data": image.data},
                "thoughtSignature": "c2lnbmVk",
            }
        ],
    }
    other = pi_sdk.get_model("openai", "gpt-5")
    (moved,) = pi_sdk.provider.transform_messages([signed], other)
    assert isinstance(moved, pi_sdk.AssistantMessage)
    assert [b.model_dump(mode="json") for b in moved.content] == [
        {
            "type": "text",
            "text": f"[image/jpeg image made by {reply.provider}/{reply.model}: not sent]",
        }
    ]


# --- pi-sdk chat ----------------------------------------------------------------------------


async def _chat(case: Case, session_file: Path | None) -> tuple[str, list[Any]]:
    """What ``pi-sdk chat``'s printer shows of the recorded reply, and the transcript."""
    from rich.console import Console

    from pi_sdk._cli.render import TurnPrinter
    from pi_sdk._testing.replay import DUMMY_API_KEY, replay_vcr

    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    out = io.StringIO()
    options = StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)
    with replay_vcr().use_cassette(str(case.cassette), allow_playback_repeats=False) as tape:
        for earlier in range(case.index):
            tape.play_response(tape.requests[earlier])
        agent = pi_sdk.Agent(model=model, stream_options=options)
        files = None if session_file is None else (lambda: session_file)
        agent.subscribe(
            TurnPrinter(Console(file=out, highlight=False, width=400), session_file=files)
        )
        await agent.prompt("(recorded)")
    return out.getvalue(), agent.messages


CHAT_SOURCES = [c for c in [*ANNOTATED, *GROUNDED, *CHAT_ANNOTATED] if c.index == 0]


@pytest.mark.parametrize("case", CHAT_SOURCES, ids=[c.id for c in CHAT_SOURCES])
async def test_pi_sdk_chat_shows_the_cited_sources(case: Case):
    said, messages = await _chat(case, None)
    blocks = [b for b in messages[-1].content if isinstance(b, TextContent) and b.citations]
    assert blocks
    for block in blocks:
        first = (block.citations or [])[0]
        if first.url and first.title:
            assert f"[source] {first.title} {first.url}" in said
        else:
            assert f"[source] {first.url or first.title}" in said
    shown = {line for line in said.splitlines() if line.strip().startswith("[source]")}
    wanted = {c.url or c.title for b in blocks for c in b.citations or ()}
    assert len(shown) == len(wanted)  # each source once per block, none made up


@pytest.mark.parametrize("case", IMAGES, ids=[c.id for c in IMAGES])
async def test_pi_sdk_chat_saves_an_image_to_a_file_it_names(case: Case, tmp_path: Path):
    session = tmp_path / "chat-1.jsonl"
    said, messages = await _chat(case, session)
    (image,) = [b for b in messages[-1].content if isinstance(b, ImageContent)]
    extension = ".jpg"
    first = tmp_path / f"chat-1-image-1{extension}"
    assert f"saved to {first}" in said
    assert first.read_bytes() == base64.b64decode(image.data)
    said_again, _ = await _chat(case, session)  # a continued chat: a new name, the old kept
    second = tmp_path / f"chat-1-image-2{extension}"
    assert f"saved to {second}" in said_again and first.read_bytes() == second.read_bytes()
    said_unsaved, _ = await _chat(case, None)
    assert "image/jpeg image" in said_unsaved and "saved to" not in said_unsaved
    from pi_sdk._cli.render import transcript_lines

    assert ("🖼 image/jpeg image", "cyan") in transcript_lines(messages)  # a --continue replay
