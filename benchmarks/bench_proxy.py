"""Benchmark: what a call through the proxy costs on top of the same call made directly.

Upstream is the scripted provider (no vendor, no network), so the numbers are the proxy's own
cost: the client's request and event rebuilding, uvicorn + Starlette, the server's encoding of
each event. Per round, ``concurrency`` calls run at once, A (``pi_sdk.complete``) then B
(``stream_proxy`` to ``proxy_app`` under uvicorn on a loopback port, in the same process and
event loop), interleaved for ``rounds`` rounds. Prints the best time per call of each and the
ratio B/A measured in the same run.

Run with ``uv run python benchmarks/bench_proxy.py [--concurrency 50] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx2
import uvicorn

import pi_sdk
from pi_sdk.agent import ProxyPolicy, proxy_app, stream_proxy
from pi_sdk.testing import ScriptedProvider, ScriptedReply

ANSWER = "The weather in Paris is sunny, 21 degrees, with a light breeze from the west. " * 4
TOKEN = "bench-token"


async def main(concurrency: int, rounds: int) -> None:
    calls = 2 * concurrency * rounds + 2  # + the warm-up
    replies = [ScriptedReply.text(ANSWER, chunk_size=8) for _ in range(calls)]
    scripted = ScriptedProvider(replies)
    model = scripted.model
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Weather in Paris?")])
    policy = ProxyPolicy(token=TOKEN, allow=("*/*",), resolve_model=lambda _p, _i: model)
    config = uvicorn.Config(proxy_app(policy), port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    serving = asyncio.ensure_future(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    best = {"direct": float("inf"), "proxied": float("inf")}
    async with httpx2.AsyncClient(timeout=None) as client:

        async def direct() -> pi_sdk.AssistantMessage:
            return await pi_sdk.complete(model, context)

        async def proxied() -> pi_sdk.AssistantMessage:
            events = stream_proxy(model, context, proxy_url=url, auth_token=TOKEN, client=client)
            return await events.result()

        await asyncio.gather(*(proxied() for _ in range(2)))  # warm up: connections, imports
        for _ in range(rounds):
            for name, call in (("direct", direct), ("proxied", proxied)):
                start = time.perf_counter()
                messages = await asyncio.gather(*(call() for _ in range(concurrency)))
                elapsed = (time.perf_counter() - start) / concurrency
                assert all(message.text == ANSWER for message in messages), name
                best[name] = min(best[name], elapsed)
    server.should_exit = True
    await serving
    for name, seconds in best.items():
        print(f"{name:>8}: {seconds * 1000:7.2f} ms per call ({concurrency} at once)")
    print(f"   ratio: proxied / direct = {best['proxied'] / best['direct']:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.concurrency, args.rounds))
