"""The conformance kit's parts on their own: the declaration, reply comparison, the kit's server.

A provider author builds a declaration from files and cassettes, and the rules' sentences come
from the comparisons of ``conformance.content``; the kit's HTTP server is its vendor (issue 34:
each behaviour pinned where the kit implements it).
"""

from __future__ import annotations

import asyncio
import socket
import struct
from pathlib import Path
from typing import Any

import pytest
import yaml
from pi_sdk_pytest import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.content import blocks, kept_size, not_a_prefix, reply_difference
from pi_sdk_pytest.conformance.loopback import LoopbackServer, Reply

import pi_sdk
from pi_sdk import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall

# --- the declaration --------------------------------------------------------------------------


def _cassette(path: Path, *interactions: Any) -> Path:
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1}))
    return path


def _interaction(body: Any, headers: Any) -> dict[str, Any]:
    response = {"status": {"code": 200, "message": "OK"}, "headers": headers}
    if body is not None:
        response["body"] = {"string": body}
    return {"request": {"method": "POST", "uri": "https://vendor.test/v1"}, "response": response}


def test_a_body_from_a_file_is_named_after_its_stem(tmp_path: Path) -> None:
    (tmp_path / "hello.sse").write_bytes(b"data: {}\n\n")
    body = RecordedBody.from_file(tmp_path / "hello.sse", "text/event-stream")
    assert body == RecordedBody(
        name="hello", body=b"data: {}\n\n", content_type="text/event-stream"
    )
    named = RecordedBody.from_file(str(tmp_path / "hello.sse"), "text/plain", name="greeting")
    assert (named.name, named.content_type) == ("greeting", "text/plain")


def test_a_body_from_a_cassette_takes_the_interactions_body_and_content_type(
    tmp_path: Path,
) -> None:
    path = _cassette(
        tmp_path / "calls.yaml",
        _interaction("first", {"Content-Type": ["application/json"]}),
        _interaction("data: é\n\n", {"x-other": "1", "CONTENT-TYPE": "text/event-stream"}),
        _interaction(b"\x00\x01raw", {"content-type": []}),
        _interaction(12, {}),
    )
    assert RecordedBody.from_cassette(path) == RecordedBody(
        name="calls[0]", body=b"first", content_type="application/json"
    )
    assert RecordedBody.from_cassette(path, interaction=1, name="stream") == RecordedBody(
        name="stream", body="data: é\n\n".encode(), content_type="text/event-stream"
    )
    assert RecordedBody.from_cassette(str(path), interaction=2) == RecordedBody(
        name="calls[2]", body=b"\x00\x01raw", content_type=""
    )
    assert RecordedBody.from_cassette(path, interaction=3).body == b"12"


@pytest.mark.parametrize("interaction", [-1, 2])
def test_a_missing_interaction_is_named(tmp_path: Path, interaction: int) -> None:
    path = _cassette(tmp_path / "c.yaml", _interaction("a", {}), _interaction("b", {}))
    with pytest.raises(ValueError, match=r"^(.*)c\.yaml has no interaction (-1|2)$") as caught:
        RecordedBody.from_cassette(path, interaction=interaction)
    assert str(caught.value) == f"{path} has no interaction {interaction}"


@pytest.mark.parametrize("content", ["just text", "interactions: 3", "interactions: [7]"])
def test_a_file_that_is_not_a_cassette_has_no_interaction_or_body(
    tmp_path: Path, content: str
) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(content)
    with pytest.raises(ValueError) as caught:
        RecordedBody.from_cassette(path)
    if content == "interactions: [7]":  # an interaction that is not a mapping has no body
        assert str(caught.value) == f"interaction 0 of {path} has no response body"
    else:
        assert str(caught.value) == f"{path} has no interaction 0"


def test_an_interaction_without_a_body_is_named(tmp_path: Path) -> None:
    path = _cassette(tmp_path / "c.yaml", _interaction(None, {}))
    with pytest.raises(ValueError) as caught:
        RecordedBody.from_cassette(path)
    assert str(caught.value) == f"interaction 0 of {path} has no response body"


def test_a_declaration_without_bodies_is_refused() -> None:
    with pytest.raises(ValueError) as caught:
        ProviderUnderTest(name="echo", model=lambda url: pi_sdk.Model(id="m"), bodies=[])
    assert str(caught.value) == "ProviderUnderTest 'echo': give at least one recorded body"


def test_a_declaration_defaults_to_the_documented_deadlines_and_no_plugin() -> None:
    """10 s for a closed connection to be seen, 60 s for one call: the bounds that turn a leak
    or a hang into a failure (the kit's docs and its failure messages name them)."""
    body = RecordedBody(name="b", body=b"x", content_type="text/plain")
    declared = ProviderUnderTest(name="echo", model=lambda url: pi_sdk.Model(id="m"), bodies=[body])
    assert (declared.release_deadline_s, declared.call_deadline_s) == (10.0, 60.0)
    assert (declared.api_key_env, declared.plugin, dict(declared.provider_options)) == (
        None,
        None,
        {},
    )


# --- comparing replies ------------------------------------------------------------------------

CALL = ToolCall(id="c1", name="lookup", arguments={"q": "x"})
IMAGE = ImageContent(data="aGk=", mime_type="image/png")


def message(*content: Any) -> AssistantMessage:
    return AssistantMessage(
        api="toy", provider="toy", model="m", content=list(content), stop_reason="stop"
    )


WHOLE = message(
    ThinkingContent(thinking="let me see", thinking_signature="sig"),
    TextContent(text="Hello there"),
    CALL,
)


def test_blocks_compare_every_kind_with_its_signature_and_ids() -> None:
    assert blocks(message(*WHOLE.content, IMAGE)) == [
        ("thinking", "let me see", "sig"),
        ("text", "Hello there", None),
        ("toolCall", "c1", "lookup", {"q": "x"}),
        ("image",),
    ]


def test_kept_size_counts_blocks_and_the_characters_of_text_and_thinking() -> None:
    assert kept_size(WHOLE) == 3 + len("let me see") + len("Hello there")
    assert kept_size(message()) == 0


@pytest.mark.parametrize(
    ("kept", "problem"),
    [
        (WHOLE.content, None),
        ([ThinkingContent(thinking="let", thinking_signature="other")], None),
        ([*WHOLE.content, IMAGE], "4 blocks kept, the whole reply has 3"),
        ([TextContent(text="Hello")], "block 0 is text, the whole reply's is thinking"),
        (
            [ThinkingContent(thinking="let us")],
            "thinking block 0 'let us' does not begin 'let me see'",
        ),
        (
            [WHOLE.content[0], TextContent(text="Hi")],
            "text block 1 'Hi' does not begin 'Hello there'",
        ),
        (
            [*WHOLE.content[:2], ToolCall(id="c2", name="lookup", arguments={})],
            "tool call 2 ('c2', 'lookup') is not ('c1', 'lookup')",
        ),
        (
            [*WHOLE.content[:2], ToolCall(id="c1", name="search", arguments={})],
            "tool call 2 ('c1', 'search') is not ('c1', 'lookup')",
        ),
        ([*WHOLE.content[:2], ToolCall(id="c1", name="lookup", arguments={})], None),
    ],
)
def test_not_a_prefix_says_how_kept_content_differs_from_the_reply(
    kept: list[Any], problem: str | None
) -> None:
    assert not_a_prefix(message(*kept), WHOLE) == problem


def test_reply_difference_shortens_long_values() -> None:
    long = message(TextContent(text="x" * 200))
    said = reply_difference(long, message())
    assert said is not None
    first = repr(blocks(long))[:117] + "..."
    assert said == f"content {first} != []"


# --- the kit's server -------------------------------------------------------------------------


async def _exchange(server: LoopbackServer, request: bytes) -> tuple[Any, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", int(server.url.rsplit(":")[-1]))
    writer.write(request)
    await writer.drain()
    return reader, writer


GET = b"GET /v1/x HTTP/1.1\r\nhost: k\r\n\r\n"


async def test_a_bodyless_status_has_no_framing_and_keeps_the_connection() -> None:
    async with LoopbackServer() as server:
        server.play(Reply(status=204, headers={"x-a": "1"}), Reply(status=304))
        reader, writer = await _exchange(server, GET)
        first = await reader.readuntil(b"\r\n\r\n")
        writer.write(GET)
        second = await reader.readuntil(b"\r\n\r\n")
        writer.close()
    assert first == b"HTTP/1.1 204 No Content\r\nx-a: 1\r\n\r\n"
    assert second == b"HTTP/1.1 304 Not Modified\r\n\r\n"
    assert [r.target for r in server.received] == ["/v1/x", "/v1/x"]


async def test_an_unknown_status_gets_a_generic_phrase_and_pauses_hold_a_part_back() -> None:
    async with LoopbackServer() as server:
        server.play(Reply(status=599, parts=(b"ab", b"", b"cd"), pauses={0: 0.001, 2: 0.001}))
        reader, writer = await _exchange(server, GET)
        answer = await reader.readuntil(b"0\r\n\r\n")
        writer.close()
    head = b"HTTP/1.1 599 Unknown\r\ntransfer-encoding: chunked\r\n\r\n"
    assert answer == head + b"2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n"  # the empty part is skipped


async def test_a_chunked_request_body_is_read_whole() -> None:
    request = (
        b"POST /v1/messages?beta=1 HTTP/1.1\r\nTransfer-Encoding: Chunked\r\nX-Key: k1\r\n\r\n"
        b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n"
    )
    async with LoopbackServer() as server:
        reader, writer = await _exchange(server, request + GET)
        await reader.readuntil(b"0\r\n\r\n")
        await reader.readuntil(b"0\r\n\r\n")  # the second request on the connection is answered
        writer.close()
    first, second = server.received
    assert (first.method, first.target, first.body) == (
        "POST",
        "/v1/messages?beta=1",
        b"hello world",
    )
    assert first.headers == {"transfer-encoding": "Chunked", "x-key": "k1"}
    assert (second.method, second.body) == ("GET", b"")


async def test_open_connections_counts_the_connections_being_served() -> None:
    async with LoopbackServer() as server:
        reader, writer = await _exchange(server, GET)
        await reader.readuntil(b"0\r\n\r\n")
        assert (server.open_connections, server.connections) == (1, 1)
        writer.close()
        await writer.wait_closed()
        for _ in range(1000):  # the server notices the close within a few loop turns
            if not server.open_connections:
                break
            await asyncio.sleep(0)
        assert server.open_connections == 0


async def test_a_request_cut_inside_its_head_is_dropped() -> None:
    async with LoopbackServer() as server:
        reader, writer = await _exchange(server, b"GET /half HTTP/1.1\r\nhost")
        writer.write_eof()
        assert await reader.read() == b""  # the server closes without an answer
        writer.close()
    assert server.received == []


async def test_a_hanging_reply_ends_when_the_client_resets_the_connection() -> None:
    async with LoopbackServer() as server:
        server.play(Reply(parts=(b"part",), end="hang"))
        reader, writer = await _exchange(server, GET)
        await reader.readuntil(b"part\r\n")
        assert server.in_flight == 1
        sock: socket.socket = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # TCP RST, not a FIN
        assert await server.released(5.0)
    assert (server.client_closes, server.in_flight) == (1, 0)


@pytest.mark.parametrize(
    ("body", "half"), [(b"abcdef", b"abc"), (b"abcdefg", b"abc"), (b"ab", b"a"), (b"a", b"a")]
)
def test_the_retries_rule_cuts_the_body_at_its_first_half_at_least_one_byte(
    body: bytes, half: bytes
) -> None:
    from pi_sdk_pytest.conformance.rules.retries import _cases

    recorded = RecordedBody(name="b", body=body, content_type="text/event-stream")
    first, reply, retries, retried = _cases(recorded)[-1]
    assert first == "the body's first half, then a connection reset"
    assert (reply.parts, reply.end, retries, retried) == ((half,), "rst", 2, False)
    assert reply.headers == {"content-type": "text/event-stream"}


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("y" * 118, "'" + "y" * 118 + "'"),  # a repr of 120 characters: shown whole
        ("y" * 119, "'" + "y" * 116 + "..."),  # 121: its first 117, then "..."
    ],
)
def test_a_kept_thinking_text_is_shown_whole_up_to_120_characters(text: str, shown: str) -> None:
    kept = message(ThinkingContent(thinking=text))
    assert not_a_prefix(kept, WHOLE) == f"thinking block 0 {shown} does not begin 'let me see'"
