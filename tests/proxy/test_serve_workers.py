"""``pi-sdk serve --workers N`` (issue 33): one port, several processes, the same token, keys
and limits; the per-key rate limit and usage counted over every worker (SQLite, WAL); a worker
that dies is replaced; SIGTERM stops them all.

The load test sends ``PI_SDK_SERVE_STREAMS`` (default 1,000) concurrent streams through 4
workers with pi's client (``stream_proxy``), each asking the loopback vendor to echo its own
text, and checks every reply; then one key's rate limit over the workers together.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from _support.loopback import model_at
from _support.proxy import API, TOKEN, VENDOR_KEY
from _support.serving import free_port

import pi_sdk
from pi_sdk.agent import stream_proxy

ECHO_VENDOR = Path(__file__).resolve().parents[1] / "_support" / "echo_vendor.py"
STREAMS = int(os.environ.get("PI_SDK_SERVE_STREAMS", "1000"))
KEYS = {"app-a": "key-a-5b1e0c2d7f", "app-b": "key-b-9a8c7e6f5d"}


class EchoVendor:
    """``echo_vendor.py`` in its own process: its URL, while the block runs."""

    async def __aenter__(self) -> str:
        self.process = subprocess.Popen(
            [sys.executable, str(ECHO_VENDOR)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        return (await asyncio.to_thread(self.process.stdout.readline)).strip()

    async def __aexit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        await asyncio.to_thread(self.process.wait, 30)


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


class Served:
    """``pi-sdk serve --workers 4`` in front of an echoing loopback vendor."""

    def __init__(self, tmp_path: Path, vendor_url: str, *extra: str) -> None:
        self.model = model_at(API, vendor_url).model_copy(update={"id": "claude-echo"})
        models = tmp_path / "models.json"
        models.write_text(json.dumps({"models": [self.model.model_dump(mode="json")]}), "utf-8")
        keys = tmp_path / "keys.json"
        keys.write_text(json.dumps(KEYS), "utf-8")
        self.usage_db = tmp_path / "usage.sqlite"
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        command = [
            sys.executable, "-m", "pi_sdk._cli", "serve", "--port", str(port), "--workers", "4",
            "--allow", "anthropic/claude-echo", "--models", str(models), "--keys-file", str(keys),
            "--usage-db", str(self.usage_db), "--log-level", "warning", *extra,
        ]  # fmt: skip
        env = {**os.environ, "PI_SDK_PROXY_TOKEN": TOKEN, "ANTHROPIC_API_KEY": VENDOR_KEY}
        # A file, not a pipe: a pipe nobody reads until the end fills up and blocks the workers.
        self.log = tmp_path / "serve.log"
        with self.log.open("w") as err:
            self.process = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=err, text=True
            )
        self.stderr = ""

    async def __aenter__(self) -> Served:
        async with httpx2.AsyncClient() as client:
            for _ in range(600):
                if self.process.poll() is not None:
                    pytest.fail(f"the server exited: {self.log.read_text('utf-8')}")
                try:
                    await client.get(self.url)
                    break
                except httpx2.TransportError:
                    await asyncio.sleep(0.05)
        for _ in range(200):  # every worker forked
            if len(_children(self.process.pid)) == 4:
                break
            await asyncio.sleep(0.05)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(self.process.wait, 60)
        self.stderr = self.log.read_text("utf-8")

    async def ask(
        self, client: httpx2.AsyncClient, token: str, text: str
    ) -> pi_sdk.AssistantMessage:
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content=text)])
        options = pi_sdk.StreamOptions(max_retries=0, timeout_ms=120_000)
        stream = stream_proxy(
            self.model, context, options, proxy_url=self.url, auth_token=token, client=client
        )
        return await stream.result()


def _client() -> httpx2.AsyncClient:
    limits = httpx2.Limits(max_connections=STREAMS + 100, max_keepalive_connections=STREAMS + 100)
    return httpx2.AsyncClient(limits=limits, timeout=120)


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_four_workers_serve_concurrent_streams_with_a_shared_rate_limit(tmp_path: Path):
    limit = STREAMS // 2 + STREAMS // 10  # app-a: more than its first half, less than all it sends
    async with EchoVendor() as vendor:
        # The clients share this process: on a busy machine a body may wait long to be sent.
        served = Served(tmp_path, vendor, "--rate-limit", f"{limit}/h", "--body-timeout", "120")
        async with served, _client() as client:
            workers = _children(served.process.pid)
            before = {pid: _cpu_ticks(pid) for pid in workers}
            tokens = [KEYS["app-a"] if i % 2 else KEYS["app-b"] for i in range(STREAMS)]
            replies = await asyncio.gather(
                *(served.ask(client, token, f"stream {i}") for i, token in enumerate(tokens))
            )
            busy = [pid for pid in workers if _cpu_ticks(pid) > before[pid]]
            # app-a again, at once: only what is left of its limit gets through.
            more = await asyncio.gather(
                *(served.ask(client, KEYS["app-a"], f"more {i}") for i in range(STREAMS // 5))
            )
            usage = {
                name: (await client.get(f"{served.url}/api/usage", headers={
                    "authorization": f"Bearer {token}"})).json()
                for name, token in KEYS.items()
            }  # fmt: skip

    wrong = [
        (i, r.text, r.error_message) for i, r in enumerate(replies) if r.text != f"echo: stream {i}"
    ]
    assert wrong == [], wrong[:5]
    assert len(workers) == 4 and len(busy) == 4  # every worker served streams
    served_more = [r for r in more if r.error_message is None]
    assert all(r.text.startswith("echo: more ") for r in served_more)
    refused = [r for r in more if r.error_message is not None]
    first_half = STREAMS // 2
    assert len(served_more) == limit - first_half, [r.error_message for r in refused[:3]]
    assert refused and all(
        (r.error_message or "").startswith("Proxy error: rate limit: key 'app-a' may make")
        for r in refused
    )
    assert usage["app-a"]["requests"] == limit and usage["app-a"]["refused"] == len(refused)
    assert usage["app-b"]["requests"] == STREAMS - first_half and usage["app-b"]["refused"] == 0
    assert usage["app-b"]["output"] > 0  # the vendor's token counts, added up
    assert TOKEN not in served.stderr and KEYS["app-a"] not in served.stderr


@pytest.mark.slow  # a multi-worker server, one worker SIGKILLed
async def test_a_killed_worker_is_replaced_and_sigterm_stops_them_all(tmp_path: Path):
    async with EchoVendor() as vendor:
        served = Served(tmp_path, vendor)
        async with served, _client() as client:
            first = _children(served.process.pid)
            os.kill(first[0], signal.SIGKILL)
            for _ in range(200):
                now = _children(served.process.pid)
                if len(now) == 4 and first[0] not in now:
                    break
                await asyncio.sleep(0.05)
            replies = await asyncio.gather(
                *(served.ask(client, TOKEN, f"after {i}") for i in range(20))
            )
            refused = await served.ask(client, "not-a-key", "no")
            workers = _children(served.process.pid)
        assert served.process.returncode == 0
    assert first[0] not in workers and len(workers) == 4
    assert [r.text for r in replies] == [f"echo: after {i}" for i in range(20)]
    assert refused.error_message == "Proxy error: unauthorized: a valid bearer token is required"
    assert f"worker {first[0]} ended (killed by SIGKILL); starting another" in served.stderr
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)  # none left behind
