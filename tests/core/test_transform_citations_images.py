"""The transform's rules for citations and images a model made (``pi_sdk._wire.citations``).

Same source: both kept as they are (the adapter replays them). Any other target: the citations
leave the text and become one ``[sources cited]`` text block after the turn's last cited text
block; an image becomes a text naming it. ``/model``'s carry-over line counts both.
"""

from __future__ import annotations

import pytest
from _support.messages import assistant

import pi_sdk
from pi_sdk import Citation, ImageContent, TextContent, ToolCall, UserMessage
from pi_sdk._cli.switch import carry_over
from pi_sdk._wire.citations import MAX_SOURCES_CHARS, cited_sources_text
from pi_sdk.provider import transform_messages

CLAUDE = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
GPT = pi_sdk.get_model("openai", "gpt-5")
GEMINI = pi_sdk.get_model("google", "gemini-2.5-flash")

WEB = Citation(type="url_citation", url="https://a.example/x", title="A", raw={"type": "u"})
AGAIN = Citation(type="url_citation", url="https://a.example/x", title="A (again)")
DOC = Citation(type="char_location", title="Handbook", cited_text="Dial  112\nanywhere.")
BARE = Citation(type="char_location")


def _turn() -> pi_sdk.AssistantMessage:
    return assistant(
        GPT,
        TextContent(text="Bitcoin was at $88k", citations=[WEB, AGAIN]),
        TextContent(text=" and the handbook agrees.", citations=[DOC, BARE]),
        ToolCall(id="call_1", name="lookup", arguments={}),
        TextContent(text="Uncited tail."),
        ImageContent(data="aGk=", mime_type="image/png", thought_signature="sig"),
        stop="stop",
    )


def test_the_same_source_keeps_citations_and_images_as_they_are():
    turn = _turn()
    (kept,) = transform_messages([turn], GPT)
    assert kept is turn  # nothing to change: the same object


def test_another_vendor_gets_the_sources_after_the_last_cited_text_and_the_image_as_text():
    (moved,) = transform_messages([_turn()], CLAUDE)
    assert isinstance(moved, pi_sdk.AssistantMessage)
    dumped = [b.model_dump(mode="json") for b in moved.content]
    sources = '[sources cited]\n- A https://a.example/x\n- Handbook: "Dial 112 anywhere."'
    assert dumped == [
        {"type": "text", "text": "Bitcoin was at $88k"},
        {"type": "text", "text": " and the handbook agrees."},
        {"type": "text", "text": sources},
        {"type": "toolCall", "id": "call_1", "name": "lookup", "arguments": {}},
        {"type": "text", "text": "Uncited tail."},
        {"type": "text", "text": "[image/png image made by openai/gpt-5: not sent]"},
    ]


def test_a_turn_whose_citations_name_nothing_gets_no_sources_block():
    turn = assistant(GPT, TextContent(text="hi", citations=[BARE]), stop="stop")
    (moved,) = transform_messages([turn], GEMINI)
    assert isinstance(moved, pi_sdk.AssistantMessage)
    assert [b.model_dump(mode="json") for b in moved.content] == [{"type": "text", "text": "hi"}]


def test_the_sources_text_is_cut_and_long_passages_are_shortened():
    many = [
        Citation(type="web", url=f"https://s.example/{n:04}", title="t" * 40) for n in range(200)
    ]
    text = cited_sources_text(many) or ""
    assert len(text) == MAX_SOURCES_CHARS and text.endswith("…")
    passage = cited_sources_text([Citation(type="page", title="T", cited_text="w " * 300)]) or ""
    assert len(passage.splitlines()[1]) < 220 and passage.endswith('…"')


@pytest.mark.parametrize("length", [3999, 4000, 4001])
def test_the_sources_text_is_kept_whole_up_to_4000_characters_and_cut_beyond(length: int):
    url = "https://s.example/" + "u" * (length - len("[sources cited]\n- https://s.example/"))
    whole = f"[sources cited]\n- {url}"
    assert len(whole) == length
    text = cited_sources_text([Citation(type="web", url=url)])
    assert text == (whole if length <= 4000 else whole[:3999] + "…")


def test_a_same_source_image_loses_a_blank_signature():
    turn = assistant(GPT, ImageContent(data="aGk=", mime_type="image/png", thought_signature=" "))
    (kept,) = transform_messages([turn], GPT)
    assert isinstance(kept, pi_sdk.AssistantMessage)
    (image,) = kept.content
    assert isinstance(image, ImageContent) and image.thought_signature is None


def test_model_switch_says_what_becomes_text():
    server = pi_sdk.ServerToolCall(id="ws_1", name="web_search", arguments={"query": "q"})
    turn = _turn()
    turn.content.insert(0, server)
    line = carry_over([UserMessage(content="q"), turn], CLAUDE)
    assert "1 server-tool block sent as text" in line
    assert "4 citations sent as a list of sources" in line
    assert "1 image the model made sent as text" in line
    assert "1 signature dropped" in line  # the image's
    assert "citation" not in carry_over([UserMessage(content="q"), turn], GPT)
