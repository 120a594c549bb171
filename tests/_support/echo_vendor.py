"""An Anthropic-shaped vendor that echoes each prompt, in a process of its own.

``python echo_vendor.py`` prints its base URL, then serves until stdin closes: each request is
answered with the streamed text ``echo: <the last user message>`` (5 input and 3 output tokens).
A load test runs it apart so that the vendor and the clients do not share one event loop.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _support.loopback import LoopbackServer, Step, text_reply  # noqa: E402

API = "anthropic-messages"


def echo(method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
    text = json.loads(body)["messages"][-1]["content"]
    if isinstance(text, list):
        text = "".join(block.get("text", "") for block in text)
    return text_reply(API, f"echo: {text}")


async def main() -> None:
    async with LoopbackServer([], route=echo) as vendor:
        print(vendor.url, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(main())
