"""The SSE parser, the partial-JSON parser and the session loader, fuzzed (issue 15.7).

* :func:`pi_sdk.provider.iter_sse` over real recorded bodies, damaged and cut into random
  chunks: it never raises, and the events before the damage come out as from the intact body;
* :func:`parse_partial_json` over every prefix of damaged JSON and arbitrary
  text: always a dict, never an exception;
* the session loader (``loads_session``) over damaged saved sessions: it loads, or raises
  :class:`pi_sdk.SessionFileError`, nothing else (the format may change; the test does not
  depend on it).
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest
from _support.conformance import conformance_dir, load_cases, recorded_reply
from _support.fuzz import TRIED, fuzz, mutated
from hypothesis import given
from hypothesis import strategies as st

import pi_sdk
from pi_sdk._agent.session import dumps_session, loads_session
from pi_sdk._stream.partial_json import parse_partial_json
from pi_sdk.provider import iter_sse

ROOT = conformance_dir()


@functools.cache
def _sse_bodies() -> list[bytes]:
    """The recorded streamed bodies (not Bedrock's binary frames), read when a test needs them:
    not at collection, which every xdist worker does."""
    if not ROOT:
        return []
    return [
        recorded_reply(c).body
        for c in load_cases(ROOT)
        if c.stream and c.status == 200 and not c.api.startswith("bedrock")
    ]


async def _events(body: bytes, sizes: list[int]) -> list[tuple[str | None, str]]:
    async def chunks() -> Any:
        at = 0
        for size in sizes:
            if at >= len(body):
                break
            yield body[at : at + size]
            at += size
        if at < len(body):
            yield body[at:]

    return [(e.event, e.data) async for e in iter_sse(chunks())]


@pytest.mark.timeout(300)
def test_the_sse_parser_survives_damaged_bodies() -> None:
    bodies = _sse_bodies()
    if not bodies:
        pytest.skip("conformance folder absent")

    @fuzz(scale=4)
    @given(st.data())
    def check(data: Any) -> None:
        TRIED["sse"] += 1
        body = data.draw(st.sampled_from(bodies))
        _kind, damaged, first = data.draw(mutated(body, False))
        sizes = data.draw(st.lists(st.integers(1, 512), max_size=40))
        got = asyncio.run(_events(damaged, sizes))
        intact = asyncio.run(_events(body, []))
        cut = body[:first].rfind(b"\n\n")
        whole = asyncio.run(_events(body[: cut + 2], [])) if cut >= 0 else []
        assert got[: len(whole)] == whole
        assert len(intact) >= len(whole)

    check()


JSON_TEXTS = [
    '{"path": "/tmp/a b", "n": [1, 2.5, -3e2], "ok": true, "none": null, "s": "\\u00e9\\n"}',
    '{"a": {"b": {"c": [{"d": "deep"}]}}, "e": ""}',
]


@pytest.mark.timeout(300)
def test_the_partial_json_parser_never_raises() -> None:
    @fuzz(scale=10)
    @given(
        st.one_of(
            st.sampled_from(JSON_TEXTS).flatmap(
                lambda t: st.integers(0, len(t)).map(lambda i: t[:i])
            ),
            st.text(max_size=200),
            st.integers(1, 50_000).map(lambda depth: '{"a": ' + "[" * depth),
            st.sampled_from(JSON_TEXTS).flatmap(
                lambda t: st.tuples(st.integers(0, len(t)), st.text(max_size=8)).map(
                    lambda cut: t[: cut[0]] + cut[1] + t[cut[0] :]
                )
            ),
        )
    )
    def check(text: str) -> None:
        TRIED["partial_json"] += 1
        assert isinstance(parse_partial_json(text), dict)

    check()


SAVED = dumps_session(
    [
        pi_sdk.UserMessage(content="hi, ünïcödé 🙂"),
        pi_sdk.AssistantMessage(
            api="anthropic-messages",
            provider="anthropic",
            model="claude",
            content=[pi_sdk.TextContent(text="hello " * 20)],
            stop_reason="stop",
        ),
        pi_sdk.UserMessage(content=[pi_sdk.TextContent(text=json.dumps({"k": [1, 2]}))]),
    ]
).encode()


@pytest.mark.timeout(300)
def test_the_session_loader_loads_or_says_why() -> None:
    @fuzz(scale=4)
    @given(st.data())
    def check(data: Any) -> None:
        TRIED["session"] += 1
        _kind, damaged, _first = data.draw(mutated(SAVED, False))
        text = damaged.decode("utf-8", errors=data.draw(st.sampled_from(["replace", "ignore"])))
        try:
            loads_session(text)
        except pi_sdk.SessionFileError:
            pass

    check()
