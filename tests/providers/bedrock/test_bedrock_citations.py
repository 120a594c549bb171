"""Bedrock citations (``citationsContent``, ``citation`` deltas): read, and sent back as they came.

Shapes from the Bedrock Runtime API reference (``CitationsContentBlock``, ``Citation``,
``CitationsDelta``, ``CitationLocation``); no recording of them exists in the shared folders.
Bodies are served through the real client (``test_bedrock_stream.run``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_bedrock.converse import build_request
from pi_sdk_bedrock.converse._citations import citation
from test_bedrock_frames import frame
from test_bedrock_stream import MODEL, START, delta, end, run

import pi_sdk
from pi_sdk import Context, StreamOptions, TextContent, UserMessage

WEB = {
    "title": "Emergency number 112",
    "sourceContent": [{"text": "112 is the European emergency number."}],
    "location": {"web": {"url": "https://europa.eu/112", "domain": "europa.eu"}},
}
PAGE = {
    "title": "Handbook",
    "sourceContent": [{"text": "Dial 112"}, {"text": "from any phone."}],
    "location": {"documentPage": {"documentIndex": 0, "start": 3, "end": 4}},
}


async def test_citation_deltas_go_on_the_text_of_their_block():
    body = START + delta(0, text="Call ") + delta(0, text="112.") + delta(0, citation=WEB)
    body += delta(0, citation=PAGE) + frame("contentBlockStop", {"contentBlockIndex": 0})
    _, message, _ = await run(body + end())
    (text,) = message.content
    assert isinstance(text, TextContent) and text.text == "Call 112."
    web, page = text.citations or []
    assert (web.type, web.url, web.title, web.cited_text, web.raw) == (
        "web",
        "https://europa.eu/112",
        "Emergency number 112",
        "112 is the European emergency number.",
        WEB,
    )
    assert (page.type, page.url, page.title, page.cited_text) == (
        "documentPage",
        None,
        "Handbook",
        "Dial 112\nfrom any phone.",
    )
    assert web.start_index is None and page.end_index is None  # Bedrock gives no answer span


async def test_a_citation_before_any_text_goes_on_the_last_text_block():
    body = START + delta(0, citation=WEB) + delta(0, text="See 112.")
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    _, message, _ = await run(body + end())
    (text,) = message.content
    assert isinstance(text, TextContent) and [c.raw for c in text.citations or ()] == [WEB]


def _converse(*blocks: object) -> bytes:
    answer = {
        "output": {"message": {"role": "assistant", "content": list(blocks)}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 5, "outputTokens": 6},
    }
    return json.dumps(answer).encode()


async def test_a_converse_citations_block_is_text_with_citations_and_goes_back_as_it_came():
    cited = {"citationsContent": {"content": [{"text": "Dial 112."}], "citations": [WEB, PAGE]}}
    body = _converse({"text": "In the EU: "}, cited)
    _, message, _ = await run(body, headers={"content-type": "application/json"})
    first, second = message.content
    assert isinstance(first, TextContent) and isinstance(second, TextContent)
    assert (first.text, first.citations) == ("In the EU: ", None)
    assert second.text == "Dial 112." and [c.raw for c in second.citations or ()] == [WEB, PAGE]

    history = Context(messages=[UserMessage(content="emergency number?"), message])
    sent = build_request(MODEL, history, StreamOptions())["messages"][1]["content"]
    assert sent == [{"text": "In the EU: "}, cited]

    other = pi_sdk.get_model("openai", "gpt-5")
    (moved,) = pi_sdk.provider.transform_messages([message], other)
    assert isinstance(moved, pi_sdk.AssistantMessage)
    assert [b.model_dump(mode="json") for b in moved.content] == [
        {"type": "text", "text": "In the EU: "},
        {"type": "text", "text": "Dial 112."},
        {
            "type": "text",
            "text": "[sources cited]\n- Emergency number 112 https://europa.eu/112\n"
            '- Handbook: "Dial 112 from any phone."',
        },
    ]


DOMAIN = {"web": {"domain": "europa.eu"}}


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        # the title: the citation's own, else the web domain, else the source, each alone
        ({"title": "T"}, {"type": "citation", "title": "T"}),
        ({"location": DOMAIN}, {"type": "web", "title": "europa.eu"}),
        ({"source": "S"}, {"type": "citation", "title": "S"}),
        ({"title": "T", "location": DOMAIN, "source": "S"}, {"type": "web", "title": "T"}),
        # empty or not text: not a title, the next one is taken
        ({"title": "", "location": DOMAIN}, {"type": "web", "title": "europa.eu"}),
        ({"title": 7, "source": "S"}, {"type": "citation", "title": "S"}),
        ({"location": {"web": {"domain": ["x"]}}, "source": "S"}, {"type": "web", "title": "S"}),
        ({"title": {"a": 1}}, {"type": "citation"}),
        # the url: a web location's text only
        ({"location": {"web": {"url": "https://a.eu"}}}, {"type": "web", "url": "https://a.eu"}),
        ({"location": {"web": {"url": ""}}}, {"type": "web"}),
        ({"location": {"web": {"url": 3}}}, {"type": "web"}),
        ({"url": "https://a.eu"}, {"type": "citation"}),
        # the cited text: the text passages, joined; none is no cited text
        (
            {"sourceContent": [{"text": "a"}, {"text": 3}, "b", {"text": "c"}]},
            {"type": "citation", "cited_text": "a\nc"},
        ),
        ({"sourceContent": [{"text": ""}]}, {"type": "citation"}),
        ({"sourceContent": {"text": "a"}}, {"type": "citation"}),
        # the kind: the location's first key
        ({"location": {"documentChunk": {"start": 1}}}, {"type": "documentChunk"}),
        ({"location": {}}, {"type": "citation"}),
    ],
)
def test_each_citation_field_alone_and_when_it_is_empty_or_not_text(
    raw: dict[str, Any], fields: dict[str, Any]
) -> None:
    assert citation(raw) == pi_sdk.Citation(**fields, raw=raw)
