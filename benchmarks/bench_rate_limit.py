"""Benchmark: many agents on one key against a server that allows N requests per second.

A loopback HTTP server (in this process, on 127.0.0.1) speaks OpenAI Chat Completions and
counts the requests that arrived in the last second: beyond ``--rate`` it answers ``429 Too
Many Requests`` (``retry-after: 1``), else a short streamed reply. ``--agents`` Agents each
prompt once through one ``pi_sdk.Models`` collection, all at once, twice:

* ``without limiter``: every agent sends at once; the server counts 429s, the agents' own
  retries (``max_retries``, default 2) wait out ``retry-after``, and some give up;
* ``with limiter``: the collection holds ``RateLimit(requests=rate, per_ms=1000)`` for the
  provider: the agents wait their turn (first come, first served), the server sees no 429.

Prints, per run: requests the server answered 200 and 429, agents that completed (``stop``) and
failed, and the wall time (informative; nothing is asserted here: the tests run this script in a
small configuration and check the counts).

Run: ``uv run python benchmarks/bench_rate_limit.py [--agents 100] [--rate 20]
[--max-retries 2] [--only with|without]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import time

import pi_sdk_openai

import pi_sdk

_REPLY = (
    "".join(
        f"data: {json.dumps(chunk)}\n\n"
        for chunk in (
            {"id": "c1", "choices": [{"index": 0, "delta": {"content": "Hello"}}]},
            {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"id": "c1", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}},
        )
    ).encode()
    + b"data: [DONE]\n\n"
)


class RateLimitedServer:
    """Answers at most ``rate`` requests in any second (by arrival), 429 for the rest."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.arrivals: collections.deque[float] = collections.deque()
        self.ok = 0
        self.limited = 0
        self._server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> RateLimitedServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def _admit(self) -> bool:
        now = time.monotonic()
        while self.arrivals and self.arrivals[0] <= now - 1.0:
            self.arrivals.popleft()
        if len(self.arrivals) >= self.rate:
            return False
        self.arrivals.append(now)
        return True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                await reader.readexactly(length)
                if self._admit():
                    self.ok += 1
                    status, kind, body = b"200 OK", b"text/event-stream", _REPLY
                else:
                    self.limited += 1
                    error = {"error": {"message": "Rate limit reached", "code": "rate_limit"}}
                    status, kind, body = (
                        b"429 Too Many Requests",
                        b"application/json",
                        (json.dumps(error).encode()),
                    )
                extra = b"retry-after: 1\r\n" if status.startswith(b"429") else b""
                writer.write(
                    b"HTTP/1.1 %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n%s\r\n%s"
                    % (status, kind, len(body), extra, body)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


async def run(agents: int, rate: int, *, limited: bool, max_retries: int) -> dict[str, float]:
    """One run: ``agents`` Agents prompting at once; the server's and the agents' counts."""
    async with RateLimitedServer(rate) as server:
        provider = pi_sdk_openai.provider("openai", api_key="bench-key", base_url=server.url)
        limits = {"openai": pi_sdk.RateLimit(requests=rate, per_ms=1000)} if limited else None
        models = pi_sdk.Models([provider], plugins=None, rate_limits=limits)
        model = models.get_model("openai", "gpt-4o-mini").model_copy(
            update={"api": "openai-completions"}  # the server speaks Chat Completions
        )
        options = pi_sdk.StreamOptions(max_retries=max_retries)
        crowd = [
            pi_sdk.Agent(model=model, stream_fn=models.stream, stream_options=options)
            for _ in range(agents)
        ]
        started = time.monotonic()
        await asyncio.gather(*(agent.prompt("hi") for agent in crowd))
        wall = time.monotonic() - started
        finals = [agent.state.messages[-1] for agent in crowd]
        done = sum(1 for m in finals if getattr(m, "stop_reason", None) == "stop")
        errors = {getattr(m, "error_message", None) for m in finals} - {None}
        if errors:
            print("  errors:", *sorted(str(e) for e in errors)[:3], sep="\n    ")
        return {
            "ok": server.ok,
            "429": server.limited,
            "completed": done,
            "failed": agents - done,
            "wall_s": wall,
        }


def _line(name: str, counts: dict[str, float]) -> str:
    return (
        f"{name:16} 200s={counts['ok']:.0f} 429s={counts['429']:.0f}"
        f" completed={counts['completed']:.0f} failed={counts['failed']:.0f}"
        f" wall={counts['wall_s']:.2f}s"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--rate", type=int, default=20, help="requests per second allowed")
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--only", choices=("with", "without"))
    args = parser.parse_args()
    print(f"{args.agents} agents, one prompt each; the server allows {args.rate} requests/s")
    if args.only != "with":
        counts = await run(args.agents, args.rate, limited=False, max_retries=args.max_retries)
        print(_line("without limiter", counts))
    if args.only != "without":
        counts = await run(args.agents, args.rate, limited=True, max_retries=args.max_retries)
        print(_line("with limiter", counts))


if __name__ == "__main__":
    asyncio.run(main())
