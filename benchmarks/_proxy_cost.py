"""What ``pi-sdk serve`` adds to a stream, against a direct call (issue 32, item 4).

The vendor is the loopback server (``_loopback_server``, its own process) serving one Chat
Completions reply of 200 text deltas. Three ways to make the same call, visited in turn in every
round, at 1 stream at a time (``calls`` one after the other) and at 200 concurrent streams:

- ``direct``: ``pi_sdk.stream`` to the loopback vendor, in this process;
- ``serve``: ``pi_sdk.agent.stream_proxy`` in this process to ``pi-sdk serve`` (a subprocess:
  ``python -m pi_sdk._cli serve``, the model registered with ``--models``, the vendor key in its
  environment), which makes the direct call and streams pi-agent-core's proxy events back;
- ``litellm``: pi-sdk's Chat Completions call to the LiteLLM proxy (``_litellm_proxy.py``: LiteLLM's
  own server, ``litellm --config``, in a subprocess with an environment of its own that ``uv sync
  --script`` makes from the script's lock; same vendor and body, the smallest offline set-up: one
  model, a master key, no database, the packaged cost map, errors-only logging).

CPU per stream is this process's CPU time (``time.process_time``) plus the proxy process's
(``/proc/<pid>/stat``, Linux), divided by the streams; a proxy's added CPU is its total minus the
direct call's, and its ratio is that over the direct call's CPU (target for ``serve``: at most
0.5; and at least 5x cheaper than LiteLLM's added CPU). Time to first event: the median wall time
from the call to its first event, and what the proxy adds to the direct call's.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
from _consumers import PROMPT, pi_model
from _first_event import SHORT
from _loopback_server import LoopbackServer
from _wire_bodies import body

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage
from pi_sdk.agent import stream_proxy

TOKEN = "bench-proxy-token"
LITELLM_KEY = f"sk-{secrets.token_hex(32)}"
"""The LiteLLM proxy's master key (it refuses to start without one, or with a weak one)."""
LITELLM_SCRIPT = Path(__file__).with_name("_litellm_proxy.py")
MODEL_ID = "bench-proxy"
LEVELS = (1, 200)
WAYS = ("direct", "serve", "litellm")

Call = Callable[[], pi_sdk.AssistantMessageEventStream]


@dataclass
class Cost:
    """One way at one level: CPU seconds per stream (``proxy_cpu``: the proxy process's part),
    and the median seconds to the first event."""

    cpu: float
    first_event: float
    proxy_cpu: float = 0.0


@dataclass
class ProxyCost:
    """Every way's cost per level (a way absent: not measured, with ``missing`` saying why)."""

    levels: dict[int, dict[str, Cost]] = field(default_factory=dict[int, dict[str, Cost]])
    missing: dict[str, str] = field(default_factory=dict[str, str])

    def added(self, level: int, way: str) -> tuple[float, float] | None:
        """``way``'s added CPU per stream as a ratio to the direct call's, and its added time to
        first event in seconds; ``None`` when it was not measured."""
        costs = self.levels.get(level, {})
        if way not in costs or "direct" not in costs:
            return None
        direct, proxied = costs["direct"], costs[way]
        return (proxied.cpu - direct.cpu) / direct.cpu, proxied.first_event - direct.first_event


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_up(port: int, process: subprocess.Popen[bytes], what: str, limit: float) -> None:
    deadline = time.monotonic() + limit
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start within {limit:.0f} s") from None
            time.sleep(0.1)


@contextmanager
def _process(
    command: list[str], env: dict[str, str], port: int, what: str, log: Path, limit: float = 60
) -> Iterator[int]:
    """Run ``command`` until the block ends, its output in ``log`` (a pipe nobody reads could
    fill and stall it); yields its pid once ``port`` accepts connections (within ``limit`` s)."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=output, stderr=subprocess.STDOUT
        )
        try:
            try:
                _wait_up(port, process, what, limit)
            except RuntimeError as exc:
                lines = log.read_text("utf-8", "replace").strip().splitlines() or ["no output"]
                raise RuntimeError(f"{exc}: {lines[-1][:200]}") from None
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def _serve(model: pi_sdk.Model, folder: Path) -> Iterator[tuple[str, int]]:
    models = folder / "models.json"
    models.write_text(json.dumps({"models": [model.model_dump(mode="json")]}), "utf-8")
    port = _free_port()
    command = [sys.executable, "-m", "pi_sdk._cli", "serve", "--port", str(port)]
    command += ["--allow", f"{model.provider}/{model.id}", "--models", str(models)]
    command += ["--usage-db", str(folder / "usage.sqlite"), "--log-level", "warning"]
    env = {"PI_SDK_PROXY_TOKEN": TOKEN, "OPENAI_API_KEY": "bench-key"}
    with _process(command, env, port, "pi-sdk serve", folder / "serve.log") as pid:
        yield f"http://127.0.0.1:{port}", pid


def _uv() -> str | None:
    """The uv binary: the one running this script (``uv run`` sets ``UV``), else on ``PATH``."""
    return os.environ.get("UV") or shutil.which("uv")


def litellm_python() -> tuple[str | None, str]:
    """The interpreter of ``_litellm_proxy.py``'s environment, created from its lock on first use
    (``uv sync --script --locked``: about 40 s and 120 packages once, a no-op after); or ``None``
    and why not."""
    uv = _uv()
    if uv is None:
        return None, "uv is not on PATH (the LiteLLM proxy runs in an environment uv makes)"
    script = str(LITELLM_SCRIPT)
    synced = subprocess.run(
        [uv, "sync", "--quiet", "--locked", "--script", script], capture_output=True, text=True
    )
    if synced.returncode != 0:
        last = (synced.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"uv sync --script {LITELLM_SCRIPT.name} failed: {last}"
    found = subprocess.run(
        [uv, "python", "find", "--script", script], capture_output=True, text=True
    )
    if found.returncode != 0 or not found.stdout.strip():
        return None, f"uv python find --script {LITELLM_SCRIPT.name} failed"
    return found.stdout.strip(), ""


@contextmanager
def _litellm(python: str, vendor_url: str, folder: Path) -> Iterator[tuple[str, int]]:
    config = folder / "litellm.yaml"
    params = {"model": "openai/gpt-4o-mini", "api_base": f"{vendor_url}/v1", "api_key": "bench"}
    config.write_text(
        json.dumps({"model_list": [{"model_name": MODEL_ID, "litellm_params": params}]})
    )
    port = _free_port()
    command = [python, str(LITELLM_SCRIPT), "--config", str(config), "--port", str(port)]
    command += ["--host", "127.0.0.1", "--num_workers", "1"]
    env = {
        "LITELLM_MASTER_KEY": LITELLM_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no fetch of the cost map
        "LITELLM_LOG": "ERROR",  # as serve's --log-level warning: no access log line per request
    }
    # The import of litellm[proxy] and its start-up take 5-25 s.
    log = folder / "litellm.log"
    with _process(command, env, port, "the LiteLLM proxy", log, limit=180) as pid:
        yield f"http://127.0.0.1:{port}", pid


async def _timed(call: Call) -> float:
    """Run one call to its end; the wall seconds from the call to its first event."""
    start = time.perf_counter()
    first = 0.0
    stream = call()
    async for _ in stream:
        if not first:
            first = time.perf_counter() - start
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "".join(SHORT.text), message.text[:80]
    return first


async def _burst(
    call: Call, level: int, calls: int, pid: int | None
) -> tuple[float, float, list[float]]:
    """CPU seconds per stream (this process + ``pid``), ``pid``'s part, and every stream's
    first-event time."""
    other = _cpu_of(pid) if pid is not None else 0.0
    cpu = time.process_time()
    if level == 1:
        firsts = [await _timed(call) for _ in range(calls)]
    else:
        firsts = list(await asyncio.gather(*(_timed(call) for _ in range(level))))
    spent = time.process_time() - cpu
    proxy = 0.0
    if pid is not None:
        await asyncio.sleep(0.05)  # the proxy's last writes
        proxy = _cpu_of(pid) - other
    return (spent + proxy) / len(firsts), proxy / len(firsts), firsts


async def measure(
    vendor: LoopbackServer,
    rounds: int,
    levels: tuple[int, ...] = LEVELS,
    calls: int = 40,
    *,
    litellm: bool = True,
) -> ProxyCost:
    """Every way at every level (streams at once), ``rounds`` rounds (after one untimed burst
    of each); the LiteLLM proxy only with ``litellm`` (its environment is 120 packages)."""
    vendor.add("proxy-cost", *body("chat", SHORT))
    vendor.select("proxy-cost")
    model = pi_model("chat", vendor.url).model_copy(update={"id": MODEL_ID})
    context = Context(messages=[UserMessage(content=PROMPT)])
    keyed = StreamOptions(api_key="bench-key", max_retries=0)
    result = ProxyCost()
    ways: dict[str, tuple[Call, int | None]] = {
        "direct": (lambda: pi_sdk.stream(model, context, keyed), None)
    }
    limits = httpx2.Limits(max_connections=1000, max_keepalive_connections=1000)
    with (
        tempfile.TemporaryDirectory(prefix="pi-bench-proxy-") as name,
        _serve(model, Path(name)) as (serve_url, serve_pid),
    ):
        async with httpx2.AsyncClient(timeout=None, limits=limits) as client:
            options = StreamOptions(max_retries=0)
            ways["serve"] = (
                lambda: stream_proxy(
                    model, context, options, proxy_url=serve_url, auth_token=TOKEN, client=client
                ),
                serve_pid,
            )
            with _maybe_litellm(vendor.url, Path(name), result, litellm) as proxy:
                if proxy is not None:
                    url, pid = proxy
                    via = model.model_copy(update={"base_url": f"{url}/v1"})
                    master = StreamOptions(api_key=LITELLM_KEY, max_retries=0)
                    ways["litellm"] = (lambda: pi_sdk.stream(via, context, master), pid)
                await _rounds(ways, levels, rounds, calls, result)
    return result


@contextmanager
def _maybe_litellm(
    vendor_url: str, folder: Path, result: ProxyCost, wanted: bool
) -> Iterator[tuple[str, int] | None]:
    """The LiteLLM proxy's URL and pid while the block runs; ``None`` (and the reason in
    ``result.missing``) when not ``wanted``, or it cannot be installed or does not start."""
    if not wanted:
        result.missing["litellm"] = "left out (litellm is not among --consumers)"
        yield None
        return
    python, reason = litellm_python()
    if python is None:
        result.missing["litellm"] = reason
        yield None
        return
    with ExitStack() as stack:
        try:
            found = stack.enter_context(_litellm(python, vendor_url, folder))
        except RuntimeError as exc:
            result.missing["litellm"] = str(exc)
            found = None
        yield found


async def _rounds(
    ways: dict[str, tuple[Call, int | None]],
    levels: tuple[int, ...],
    rounds: int,
    calls: int,
    result: ProxyCost,
) -> None:
    for level in levels:
        for call, pid in ways.values():
            await _burst(call, level, 2 if level == 1 else level, pid)  # warm: pools, imports
        cpus: dict[str, list[float]] = {way: [] for way in ways}
        proxies: dict[str, list[float]] = {way: [] for way in ways}
        firsts: dict[str, list[float]] = {way: [] for way in ways}
        for _ in range(rounds):
            for way, (call, pid) in ways.items():
                cpu, proxy, first = await _burst(call, level, calls, pid)
                cpus[way].append(cpu)
                proxies[way].append(proxy)
                firsts[way].extend(first)
        result.levels[level] = {
            way: Cost(
                statistics.median(cpus[way]),
                statistics.median(firsts[way]),
                statistics.median(proxies[way]),
            )
            for way in ways
        }


def print_proxy_cost(result: ProxyCost, rounds: int) -> None:
    """Per level and way: CPU µs per stream (the proxy's part), first event µs, the additions."""
    print(f"CPU per stream (this process + the proxy's), median of {rounds} rounds;")
    print("time to first event, median over every stream; added: over the direct call")
    head = f"{'streams':>7} {'way':<8} {'CPU µs':>8} {'proxy µs':>8} {'added':>7}"
    print(f"{head} {'1st event µs':>12} {'added':>8}")
    for level, costs in result.levels.items():
        for way, cost in costs.items():
            added = result.added(level, way)
            ratio = "" if way == "direct" or added is None else f"{added[0]:.2f}x"
            later = "" if way == "direct" or added is None else f"{added[1] * 1e6:.0f}"
            print(
                f"{level:>7} {way:<8} {cost.cpu * 1e6:>8.0f} {cost.proxy_cpu * 1e6:>8.0f}"
                f" {ratio:>7} {cost.first_event * 1e6:>12.0f} {later:>8}"
            )
    for level in result.levels:
        ours, theirs = result.added(level, "serve"), result.added(level, "litellm")
        if ours is None or theirs is None or ours[0] <= 0:
            continue
        line = f"  {level} at once: LiteLLM adds {theirs[0] / ours[0]:.1f}x the CPU serve adds"
        if ours[1] > 0:
            line += f", {theirs[1] / ours[1]:.1f}x its time to first event"
        print(line)
    for way, reason in result.missing.items():
        print(f"  {way}: not measured: {reason}")
