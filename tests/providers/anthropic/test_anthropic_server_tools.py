"""Anthropic server tools on real recordings (``../shared/conformance-next``, ``servertool_*``).

* every recorded reply gives the blocks its ``future.response`` lists: each ``server_tool_use``
  (id, name, input) and result (type, ``tool_use_id``, the first result URLs), in the recorded
  content order;
* replayed to the same model, a reply's server blocks go back exactly as the vendor sent them:
  equal to the blocks the recorded follow-up request sent back (and Anthropic answered 200);
* continued on OpenAI Responses or Gemini, a web-search turn becomes the documented text
  (:mod:`pi_sdk._wire.server_tools`), with no Anthropic block or id left in the body.
"""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from _support.conformance import (
    Case,
    future_of,
    model_for,
    next_cases,
    replayed,
    run_interaction,
)
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_openai.responses import build_payload as responses_body

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    Context,
    ServerToolCall,
    ServerToolResult,
    StreamOptions,
    TextContent,
    ThinkingContent,
    UserMessage,
)
from pi_sdk._testing.replay import load_cassette

API = "anthropic-messages"
CASES = next_cases(API, "servertool_")
OPTIONS = StreamOptions(api_key="test-key", cache_retention="none")


def _vendor_type(block: Any) -> str:
    if isinstance(block, ServerToolCall | ServerToolResult):
        return cast(str, (block.raw or {})["type"])
    if isinstance(block, ThinkingContent):
        return "redacted_thinking" if block.redacted else "thinking"
    return "text" if isinstance(block, TextContent) else "tool_use"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_the_reply_keeps_every_server_block(case: Case):
    message, response = await replayed(case)
    assert [_vendor_type(b) for b in message.content] == response["content_block_order"]
    calls = [b for b in message.content if isinstance(b, ServerToolCall)]
    want_calls = response.get("server_tool_uses", [])
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        (w["id"], w["name"], w["input"]) for w in want_calls
    ]
    results = [b for b in message.content if isinstance(b, ServerToolResult)]
    want_results = response.get("server_tool_results", [])
    ids = {r.tool_call_id for r in results}
    # a continued reply opens with the result of the call the paused one stopped on
    assert set(response.get("server_tool_results_for_earlier_turn", [])) <= ids
    assert sorted((r.kind, r.tool_call_id) for r in results) == sorted(
        (w["type"], w["tool_use_id"]) for w in want_results
    )
    for want in want_results:
        (got,) = [r for r in results if r.tool_call_id == want["tool_use_id"]]
        if isinstance(got.content, list) and "results" in want:
            urls = [r.get("url") for r in cast(list[dict[str, Any]], got.content)]
            assert urls[: len(want["results"])] == [r["url"] for r in want["results"]]


SENT_BACK = [c for c in CASES if "assistant_blocks_sent_back" in future_of(c)["request"]]


def _server_blocks(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds = ("server_tool_use", "mcp_tool_use")
    return [b for b in blocks if b["type"] in kinds or b["type"].endswith("_tool_result")]


@pytest.mark.parametrize("case", SENT_BACK, ids=[c.id for c in SENT_BACK])
async def test_replayed_to_the_same_model_the_blocks_go_back_as_recorded(case: Case):
    earlier = Case(**{**vars(case), "index": case.index - 1})
    reply = (await run_interaction(earlier)).message
    recorded = load_cassette(case.cassette)[case.index]
    body = cast(dict[str, Any], recorded.body)
    (sent_turn,) = [m for m in body["messages"] if m["role"] == "assistant"]
    model = reply_model(reply)
    prompt = body["messages"][0]["content"]
    context = Context(messages=[UserMessage(content=prompt), reply])
    ours = anthropic_body(model, context, OPTIONS)
    (our_turn,) = [m for m in ours["messages"] if m["role"] == "assistant"]
    recorded_blocks = _server_blocks(sent_turn["content"])
    assert recorded_blocks, "the recording sent server blocks back"
    assert _server_blocks(our_turn["content"]) == recorded_blocks


def reply_model(reply: AssistantMessage) -> pi_sdk.Model:
    """The model that made ``reply``, at the endpoint that made it (same source)."""
    base = (reply.signature_origin or "").split("@", 1)[1]
    return pi_sdk.get_model("anthropic", reply.model).model_copy(update={"base_url": base})


WEB_SEARCH = [c for c in CASES if c.name == "servertool_websearch_citations_stream"]


@pytest.mark.parametrize("case", WEB_SEARCH, ids=[c.id for c in WEB_SEARCH])
async def test_a_web_search_turn_continued_on_openai_and_gemini_is_text(case: Case):
    reply = (await run_interaction(case)).message
    calls = [b for b in reply.content if isinstance(b, ServerToolCall)]
    query = calls[0].arguments["query"]
    context = Context(
        messages=[UserMessage(content="Search it."), reply, UserMessage(content="Thanks!")]
    )
    gpt = pi_sdk.get_model("openai", "gpt-4o")
    body = responses_body(gpt, context, OPTIONS)
    texts = [i["content"] for i in body["input"] if i.get("role") == "assistant" and "content" in i]
    joined = "\n".join(t if isinstance(t, str) else json.dumps(t) for t in texts)
    assert f'[server tool web_search: {{"query":"{query}"}}]' in joined
    assert "[web_search_tool_result]" in joined
    first = cast(list[dict[str, Any]], _first_result(reply).content)[0]
    assert f"- {first['title']} {first['url']}" in joined
    gemini = pi_sdk.get_model("google", "gemini-2.5-flash")
    g_body = google_body(gemini, context, OPTIONS)
    model_text = "\n".join(
        p.get("text", "") for c in g_body["contents"] if c["role"] == "model" for p in c["parts"]
    )
    assert f'[server tool web_search: {{"query":"{query}"}}]' in model_text
    assert f"- {first['title']} {first['url']}" in model_text
    for sent in (json.dumps(body), json.dumps(g_body)):
        assert "srvtoolu_" not in sent and "server_tool_use" not in sent
        assert "encrypted_content" not in sent


def _first_result(reply: AssistantMessage) -> ServerToolResult:
    return next(
        b for b in reply.content if isinstance(b, ServerToolResult) and b.content and not b.error
    )


PAUSED = [c for c in CASES if "pause_turn" in c.name and c.index == 0]


@pytest.mark.parametrize("case", PAUSED, ids=[c.id for c in PAUSED])
async def test_the_agent_continues_a_paused_turn(case: Case):
    from pi_sdk._testing.replay import DUMMY_API_KEY, replay_vcr

    interactions = load_cassette(case.cassette)
    model = model_for(API, interactions[0])
    prompt = cast(dict[str, Any], interactions[0].body)["messages"][0]["content"]
    options = StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)
    with replay_vcr().use_cassette(str(case.cassette), allow_playback_repeats=False) as cassette:
        agent = pi_sdk.Agent(model=model, stream_options=options)
        new = await agent.prompt(prompt if isinstance(prompt, str) else "continue")
        assert cassette.play_count == 2  # the paused reply, then its continuation
    replies = [m for m in new if isinstance(m, AssistantMessage)]
    assert [r.raw_stop_reason for r in replies] == ["pause_turn", "end_turn"]
    assert [r.stop_reason for r in replies] == ["stop", "stop"]
    pending = [b for b in replies[0].content if isinstance(b, ServerToolCall)][-1]
    first = replies[1].content[0]
    assert isinstance(first, ServerToolResult) and first.tool_call_id == pending.id


CITED = [c for c in CASES if future_of(c)["response"].get("citations")]


def _same_text(got: str, want: str) -> bool:
    """``want`` is ``got``, or the recording's shortening of it: ``"<start>... (N chars)"``."""
    head, _, tail = want.rpartition("... (")
    if head and tail == f"{len(got)} chars)":
        return got.startswith(head)
    return got == want


@pytest.mark.parametrize("case", CITED, ids=[c.id for c in CITED])
async def test_text_blocks_keep_their_citations(case: Case):
    message, response = await replayed(case)
    texts = [b for b in message.content if isinstance(b, TextContent)]
    cited = [c for t in texts for c in t.citations or ()]
    got = [(c.type, c.url, c.title) for c in cited]
    want = [(w["type"], w.get("url"), w.get("title")) for w in response["citations"]]
    assert got[: len(want)] == want
    for c, w in zip(cited, response["citations"], strict=False):
        assert _same_text(c.cited_text or "", w["cited_text"])
    assert sum(1 for t in texts if t.citations) == response["cited_text_blocks"]
    # sent back to the same model with the block, as the vendor sent them
    model = model_for(API, load_cassette(case.cassette)[case.index])
    body = anthropic_body(model, Context(messages=[UserMessage(content="q"), message]), OPTIONS)
    turns = [m for m in body["messages"] if m["role"] == "assistant"]
    sent = [b for m in turns for b in m["content"] if b.get("citations")]
    assert [c for b in sent for c in b["citations"]] == [c.raw for c in cited]
    # another vendor gets the text only
    gpt = pi_sdk.get_model("openai", "gpt-4o")
    assert "encrypted_index" not in json.dumps(
        responses_body(gpt, Context(messages=[message]), OPTIONS)
    )


@pytest.mark.parametrize("case", WEB_SEARCH, ids=[c.id for c in WEB_SEARCH])
async def test_pi_sdk_chat_shows_the_searches_and_the_sources(case: Case):
    import io

    from rich.console import Console

    from pi_sdk._cli.render import TurnPrinter, transcript_lines
    from pi_sdk._testing.replay import DUMMY_API_KEY, replay_vcr

    model = model_for(API, load_cassette(case.cassette)[0])
    out = io.StringIO()
    options = StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)
    with replay_vcr().use_cassette(str(case.cassette), allow_playback_repeats=False):
        agent = pi_sdk.Agent(model=model, stream_options=options)
        agent.subscribe(TurnPrinter(Console(file=out, highlight=False, width=400)))
        await agent.prompt("What is new today?")
    said = out.getvalue()
    reply = agent.messages[-1]
    assert isinstance(reply, AssistantMessage)
    query = next(b for b in reply.content if isinstance(b, ServerToolCall)).arguments["query"]
    assert f'⌕ web_search {{"query": "{query}"}}' in said
    first = cast(list[dict[str, Any]], _first_result(reply).content)[0]
    assert "⌕ web_search_tool_result: " in said and first["url"] in said
    cited = next(c for b in reply.content if isinstance(b, TextContent) for c in b.citations or ())
    assert f"[source] {cited.title} {cited.url}" in said
    lines = [text for text, _ in transcript_lines(agent.messages)]
    assert any(line.startswith("⌕ web_search_tool_result: ") for line in lines)
