"""Benchmark: each wire API's decoder against the floor, without the transport (issue 16).

``benchmarks/run.py`` measures a whole call (socket, HTTP, SSE framing, the event stream); this
script isolates the part a provider's decoder owns. Each API's body for a workload (the bodies
of ``_wire_bodies.py``) is split into its events once, outside the timing; then, per API:

* ``floor``: ``json.loads`` of each event and the accumulation of ``_consumers.py``'s floor
  (plain dict access into a list);
* ``pi-sdk``: ``parse_event`` of each event, the API's decoder (``feed``, then ``finish``) into
  a :class:`~pi_sdk.provider.MessageBuilder`, every event it returns iterated (Bedrock: the
  frames of the body through ``Decoder.feed_bytes``, against the same ``FrameReader`` +
  ``json.loads`` + accumulation).

It prints the floor in µs per event and pi-sdk as a multiple of it: the best of ``--repeats``
runs of CPU time (``time.process_time``, garbage collector collected before each), so a busy
moment of the shared machine counts less.

Run: ``uv run python benchmarks/bench_decode.py [--apis chat,gemini] [--workload text]
[--repeats 7]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from _consumers import _FLOOR, Calls, _floor_bedrock
from _wire_bodies import APIS, body
from _workloads import Workload, workloads
from pi_sdk_anthropic.messages._decode import Decoder as MessagesDecoder
from pi_sdk_azure.completions._decode import Decoder as AzureChatDecoder
from pi_sdk_bedrock.converse._decode import Decoder as BedrockDecoder
from pi_sdk_bedrock.converse._frames import FrameReader
from pi_sdk_google._shared_decode import GeminiDecoder
from pi_sdk_mistral.conversations._decode import Decoder as MistralDecoder
from pi_sdk_openai.completions import Decoder as ChatDecoder
from pi_sdk_openai.responses import Decoder as ResponsesDecoder

from pi_sdk import Context, Model
from pi_sdk.provider import MessageBuilder, parse_event

MODEL = Model(id="bench", api="openai-completions", provider="openai")
Runs = tuple[int, Callable[[], object], Callable[[], object]]
"""How many events the body has, the floor's run and pi-sdk's."""
DECODERS: dict[str, Callable[[MessageBuilder], Any]] = {
    "chat": ChatDecoder,
    "azure": AzureChatDecoder,
    "mistral": MistralDecoder,
    "messages": lambda b: MessagesDecoder(b, Context(messages=[]), oauth=False),
    "responses": ResponsesDecoder,
    "gemini": GeminiDecoder,
}


def best(run: Callable[[], object], repeats: int) -> float:
    """The least CPU time of ``repeats`` runs, in seconds."""
    times: list[float] = []
    for _ in range(repeats):
        gc.collect()
        began = time.process_time()
        run()
        times.append(time.process_time() - began)
    return min(times)


def sse_runs(
    api: str, workload: Workload
) -> tuple[int, Callable[[], object], Callable[[], object]]:
    """(events, floor, pi-sdk) for an SSE API: the body's ``data:`` payloads, split once."""
    raw, _ = body(api, workload)
    separator = b"\r\n\r\n" if api == "gemini" else b"\n\n"
    payloads: list[bytes] = []
    for event in raw.split(separator):
        start = event.find(b"data: ")
        if start >= 0 and event[start + 6 : start + 12] != b"[DONE]":
            payloads.append(event[start + 6 :])
    accumulate = _FLOOR[api]
    make = DECODERS[api]

    def floor() -> object:
        calls, text = Calls(), []
        for payload in payloads:
            accumulate(calls, text, json.loads(payload))
        return calls.output(text)

    def pi_sdk() -> object:
        builder = MessageBuilder(MODEL)
        decoder = make(builder)
        for payload in payloads:
            for _ in decoder.feed(parse_event(payload)):
                pass
        for _ in decoder.finish(saw_done=True):
            pass
        return builder.message

    return len(payloads), floor, pi_sdk


def bedrock_runs(workload: Workload) -> Runs:
    """(events, floor, pi-sdk) for Bedrock: the event-stream body in 64 KiB chunks."""
    raw, _ = body("bedrock", workload)
    chunks = [raw[i : i + 65536] for i in range(0, len(raw), 65536)]

    def floor() -> object:
        calls, text = Calls(), []
        reader = FrameReader()
        for chunk in chunks:
            for frame in reader.feed(chunk):
                _floor_bedrock(calls, text, frame[1], json.loads(frame[2]))
        return calls.output(text)

    def pi_sdk() -> object:
        builder = MessageBuilder(MODEL)
        decoder = BedrockDecoder(builder)
        for chunk in chunks:
            for _ in decoder.feed_bytes(chunk):
                pass
        for _ in decoder.finish():
            pass
        return builder.message

    return len(FrameReader().feed(raw)), floor, pi_sdk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apis", type=lambda t: t.split(","), default=APIS)
    parser.add_argument("--workload", default="text", choices=[w.name for w in workloads()])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    workload = next(w for w in workloads() if w.name == args.workload)
    print(f"{'api':10} {'events':>6} {'floor µs/event':>14} {'pi-sdk':>8}   ({workload.name})")
    for api in args.apis:
        events, floor, pi_sdk = (
            bedrock_runs(workload) if api == "bedrock" else sse_runs(api, workload)
        )
        floor_s, pi_s = best(floor, args.repeats), best(pi_sdk, args.repeats)
        print(f"{api:10} {events:6d} {floor_s / events * 1e6:14.2f} {pi_s / floor_s:7.2f}x")


if __name__ == "__main__":
    main()
