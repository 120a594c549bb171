"""The server writes the frames a call makes together in one write, in order, one at a time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_sdk._serve.frames import FrameWriter


class _Recorder:
    """An ASGI ``send`` that records each body and can be held (a client reading slowly)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.open = asyncio.Event()
        self.open.set()
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(self, message: dict[str, Any]) -> None:
        assert message["type"] == "http.response.body" and message["more_body"] is True
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.open.wait()
            self.bodies.append(message["body"])
        finally:
            self.in_flight -= 1


async def test_frames_made_together_go_out_in_one_write_once_the_call_waits() -> None:
    send = _Recorder()
    writer = FrameWriter(send)
    for n in range(5):  # one vendor read decoded into five events: no wait in between
        await writer.add(b"data: %d\n\n" % n)
    assert send.bodies == []  # nothing written while the call is still busy
    await asyncio.sleep(0)  # the call waits for the vendor's next bytes
    await asyncio.sleep(0)
    assert send.bodies == [b"data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n"]
    await writer.add(b"data: 5\n\n")
    await writer.drain()
    assert send.bodies[1:] == [b"data: 5\n\n"]


async def test_a_frame_is_not_held_back_while_the_call_waits() -> None:
    send = _Recorder()
    writer = FrameWriter(send)
    await writer.add(b"data: first\n\n")
    vendor = asyncio.Event()
    waiting = asyncio.ensure_future(vendor.wait())  # the vendor says nothing for a while
    await asyncio.sleep(0.01)
    assert send.bodies == [b"data: first\n\n"]
    vendor.set()
    await waiting


async def test_a_slow_client_holds_the_call_with_one_write_in_flight() -> None:
    send = _Recorder()
    send.open.clear()
    writer = FrameWriter(send)
    await writer.add(b"a")
    await asyncio.sleep(0)  # the write of "a" starts and blocks
    adding = asyncio.ensure_future(writer.add(b"b"))
    await asyncio.sleep(0.01)
    assert not adding.done()  # the call waits for the client
    send.open.set()
    await adding
    await writer.add(b"c")
    await writer.drain()
    assert b"".join(send.bodies) == b"abc"
    assert send.most_in_flight == 1


async def test_a_failed_write_fails_the_next_frame_and_the_drain() -> None:
    async def gone(message: dict[str, Any]) -> None:
        raise ConnectionResetError("the client is gone")

    writer = FrameWriter(gone)
    await writer.add(b"a")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    with pytest.raises(ConnectionResetError):
        await writer.add(b"b")
    with pytest.raises(ConnectionResetError):
        await writer.drain()


@pytest.mark.parametrize("kind", ["text_delta", "thinking_delta", "toolcall_delta"])
@pytest.mark.parametrize(
    "delta",
    ["hi", "", 'say "q" \\ \n\t café ✓ 😀 \x00\x1f \u2028', '{"path": "a.py", "n": 1'],
)
def test_a_delta_frame_is_the_bytes_both_protocols_encode(kind: str, delta: str) -> None:
    # The server writes deltas without the protocol's dict: the frame must be the same bytes.
    import json

    import pi_sdk.events as ev
    from pi_sdk._serve.wire import delta_frame, pi_messages_event_to_dict, proxy_event_to_dict
    from pi_sdk.types import AssistantMessage

    classes = {
        "text_delta": ev.TextDeltaEvent,
        "thinking_delta": ev.ThinkingDeltaEvent,
        "toolcall_delta": ev.ToolCallDeltaEvent,
    }
    message = AssistantMessage(api="openai-completions", provider="openai", model="m")
    event = classes[kind](content_index=12, delta=delta, partial=message)
    for encode in (proxy_event_to_dict, pi_messages_event_to_dict):
        text = json.dumps(encode(event), ensure_ascii=False, separators=(",", ":"))
        assert delta_frame(event) == f"data: {text}\n\n".encode()
    assert json.loads(delta_frame(event)[6:]) == {  # type: ignore[index]
        "type": kind,
        "contentIndex": 12,
        "delta": delta,
    }


def test_only_deltas_have_a_direct_frame() -> None:
    import pi_sdk.events as ev
    from pi_sdk._serve.wire import delta_frame
    from pi_sdk.types import AssistantMessage

    message = AssistantMessage(api="openai-completions", provider="openai", model="m")
    assert delta_frame(ev.StartEvent(partial=message)) is None
    assert delta_frame(ev.TextStartEvent(content_index=0, partial=message)) is None
    assert delta_frame(ev.DoneEvent(reason="stop", message=message)) is None


async def test_two_callers_ready_after_one_slow_write_write_in_order_one_at_a_time() -> None:
    # Two tasks wait for the same slow write; when it ends, the first queues its frame and
    # drains (a write starts), then the second does: its write waits for the first's.
    released: asyncio.Queue[None] = asyncio.Queue()
    bodies: list[bytes] = []
    in_flight: list[int] = [0, 0]  # now, most

    async def send(message: dict[str, Any]) -> None:
        in_flight[0] += 1
        in_flight[1] = max(in_flight)
        try:
            await released.get()  # the client reads this body
            bodies.append(message["body"])
        finally:
            in_flight[0] -= 1

    async def spin() -> None:
        for _ in range(10):
            await asyncio.sleep(0)

    writer = FrameWriter(send)

    async def add_and_drain(frame: bytes) -> None:
        await writer.add(frame)
        await writer.drain()

    await writer.add(b"a")
    await spin()  # "a" is being written, slowly
    first = asyncio.ensure_future(add_and_drain(b"x"))
    second = asyncio.ensure_future(add_and_drain(b"y"))
    await spin()
    for _ in range(3):
        released.put_nowait(None)
        await spin()
        assert in_flight[0] <= 1
    await asyncio.gather(first, second)
    assert bodies == [b"a", b"x", b"y"]
    assert in_flight[1] == 1


async def test_a_drain_before_the_call_waits_writes_each_frame_once_and_nothing_empty() -> None:
    send = _Recorder()
    writer = FrameWriter(send)
    await writer.add(b"a")
    await writer.add(b"b")
    await writer.drain()  # before the flush planned at the first add
    for _ in range(5):
        await asyncio.sleep(0)  # that planned flush runs: nothing left to send
    await writer.drain()
    assert send.bodies == [b"ab"]
