"""One command, one run, every figure of issue 16: pi-sdk against the floor, the SDKs and peers.

Sections, in order (each can be left out with ``--no-<section>``):

1. ``side-by-side`` (``_side_by_side.py``): every consumer reads the same long bodies from a
   loopback HTTP server in another process, over real sockets, with its own client stack:

   * the workloads of ``_workloads.py``: 5,000 text deltas; 20 KB and 200 KB tool arguments in
     16-byte deltas; 20 calls x 10 KB;
   * on every wire API of ``_wire_bodies.py``: ``chat`` (OpenAI Chat Completions), ``azure``
     (Azure OpenAI chat), ``mistral``, ``messages`` (Anthropic), ``responses`` (OpenAI
     Responses), ``gemini``, ``bedrock`` (ConverseStream);
   * through the consumers of ``_consumers.py``, ``_sdk_consumers.py`` and ``_peers.py``:
     ``floor`` (httpx2 + ``json.loads`` + the same accumulation), ``pi-sdk``, ``sdk`` (the raw
     vendor SDK), ``pydantic-ai`` and ``litellm`` (from the ``bench`` dependency group:
     ``uv sync --all-packages --group bench``; a consumer whose package is missing shows ``-``).

   Every output is checked (``WRONG`` / ``ERROR`` cells are left out); shuffled rounds (the
   peers, 10-100x the floor and most of the time, in the first ``--peer-rounds`` only); the
   table shows the floor's median CPU time in µs per delta and every consumer as a multiple of
   the floor (target for pi-sdk: at most 1.2 in every cell).
2. ``concurrency`` (``_concurrency.py``): CPU per stream at 100, 500 and 1,000 (``--quick``: 100
   and 1,000) concurrent streams, with the GC's part: pi-sdk on one pool, on ``PooledTransport``,
   and with ``tune_gc_for_streams``; the floor (target: 1,000 at most 1.2x 100, pooled;
   docs/concurrency.md).
3. ``memory`` (``_memory.py``): an idle Agent holding 20 messages, against plain dicts and
   pydantic-ai's messages, its JSON checked to round-trip unchanged (target: 16 KiB on the
   issue's transcript, judged as the same ratios to the baselines).
4. ``turns`` (``_turns.py``): CPU per agent turn at 100 and 1,000 turns on the scripted provider
   (target: at most 1.3x).
5. ``import`` (``_import_time.py``): fresh-process CPU ms of ``import pydantic``, ``import
   pi_sdk``, first use and plugin discovery (targets: first use at most 100 ms, discovery at
   most 50 ms more).
6. ``proxy`` (``_proxy_cost.py``): CPU per stream and time to first event through ``pi-sdk
   serve`` against a direct call, at 1 and 200 concurrent streams, and through the LiteLLM proxy
   when ``litellm`` is among the consumers (``_litellm_proxy.py``, in an environment uv makes
   from that script's own lock on the first run; targets: serve adds at most 0.5x a direct
   call's CPU, at least 5x less than LiteLLM adds).
7. ``first-event`` (``_first_event.py``): wall time to pi-sdk's first event per wire API against
   the floor's time to first byte (target: at most 1 ms added).

It ends with the targets summary (``_targets.py``): one line per target, the value measured in
this run, the target and ``met`` / ``NOT MET`` / ``not measured``. The top line gives the start
time, the git commit, the Python and the CPU count; each section and the run end with their wall
time and CPU time (this process and its finished children: the server, the import samples).
Timings are CPU time (``time.process_time``) and every figure is a ratio to a baseline measured
in the same run, so a busy machine moves the ratios less than the absolute numbers.

Run: ``uv run python benchmarks/run.py`` (every section, all consumers; about 14 minutes of CPU,
16 of wall time on 2 cores), ``--quick`` (floor and pi-sdk only, fewer rounds: about 4 minutes
of CPU), or pick:
``[--rounds 3] [--peer-rounds 2] [--apis chat,messages] [--workloads text]
[--consumers floor,pi-sdk] [--concurrency 100,500,1000] [--concurrency-rounds 3]
[--turns 100,1000] [--turn-rounds 5] [--import-rounds 15] [--proxy-rounds 3] [--proxy-streams 1,200]
[--first-event-rounds 30] [--no-side-by-side] [--no-concurrency] [--no-memory] [--no-turns]
[--no-import] [--no-proxy] [--no-first-event]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import _first_event
import _import_time
import _memory
import _proxy_cost
import _turns
from _concurrency import concurrency_table
from _consumers import AWS
from _loopback_server import LoopbackServer
from _side_by_side import CONSUMERS, side_by_side
from _targets import Results, print_targets
from _wire_bodies import APIS
from _workloads import workloads

SECTIONS = ("side-by-side", "concurrency", "memory", "turns", "import", "proxy", "first-event")
# option: (default, with --quick)
_ROUNDS = {
    "rounds": (3, 2),
    "peer_rounds": (2, 2),
    "concurrency_rounds": (3, 2),
    "turn_rounds": (5, 3),
    "import_rounds": (15, 7),
    "proxy_rounds": (3, 2),
    "first_event_rounds": (30, 15),
}


def _list(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


def _numbers(text: str) -> list[int]:
    return [int(part) for part in _list(text)]


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="floor and pi-sdk, fewer rounds")
    for option in _ROUNDS:
        parser.add_argument(f"--{option.replace('_', '-')}", type=int)
    parser.add_argument("--apis", type=_list, default=APIS)
    parser.add_argument("--workloads", type=_list, default=[w.name for w in workloads()])
    parser.add_argument("--consumers", type=_list)
    parser.add_argument("--concurrency", type=_numbers)
    parser.add_argument("--turns", type=_numbers, default=list(_turns.SIZES))
    parser.add_argument("--proxy-streams", type=_numbers, default=list(_proxy_cost.LEVELS))
    parser.add_argument("--seed", type=int, default=16)
    for section in SECTIONS:
        parser.add_argument(f"--no-{section}", action="store_true")
    args = parser.parse_args()
    for option, (full, quick) in _ROUNDS.items():
        if getattr(args, option) is None:
            setattr(args, option, quick if args.quick else full)
    if args.concurrency is None:
        args.concurrency = [100, 1000] if args.quick else [100, 500, 1000]
    if args.consumers is None:
        args.consumers = ["floor", "pi-sdk"] if args.quick else list(CONSUMERS)
    unknown = [c for c in args.consumers if c not in CONSUMERS]
    unknown += [a for a in args.apis if a not in APIS]
    unknown += [w for w in args.workloads if w not in {w.name for w in workloads()}]
    if unknown:
        parser.error(f"unknown {', '.join(unknown)} (see --help)")
    return args


def _commit() -> str:
    """The checkout's commit, marked when the tree has uncommitted changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown (no git)"
    return f"{head or 'unknown'}{' + uncommitted changes' if dirty else ''}"


def _header(args: argparse.Namespace) -> None:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    load = ", ".join(f"{n:.2f}" for n in os.getloadavg())
    print(f"pi-sdk benchmarks (issue 16), started {started}, commit {_commit()}")
    print(
        f"Python {platform.python_version()} ({sys.implementation.name}), {os.cpu_count()} CPUs,"
        f" {platform.system()} {platform.machine()}, load average {load}"
    )
    chosen = [s for s in SECTIONS if not getattr(args, f"no_{s.replace('-', '_')}")]
    print(f"{'quick' if args.quick else 'full'} run: {', '.join(chosen)}", flush=True)


def _clocks() -> tuple[float, float]:
    """Wall seconds, and CPU seconds of this process and its finished children (the import
    samples; the loopback server once it has stopped)."""
    times = os.times()
    cpu = times.user + times.system + times.children_user + times.children_system
    return time.perf_counter(), cpu


def _section(title: str) -> tuple[float, float]:
    print(f"\n== {title}", flush=True)
    return _clocks()


def _took(began: tuple[float, float]) -> str:
    wall, cpu = (now - then for now, then in zip(_clocks(), began, strict=True))
    return f"{wall:.0f} s wall, {cpu:.0f} s CPU"


async def _streams(args: argparse.Namespace, results: Results) -> None:
    """The sections that read from the loopback server."""
    os.environ.update(AWS)
    with LoopbackServer() as server:
        if not args.no_side_by_side:
            began = _section("side-by-side: CPU per delta against the floor")
            chosen = [w for w in workloads() if w.name in args.workloads]
            results.side_by_side = await side_by_side(
                server, args.apis, chosen, args.consumers, args.rounds, args.seed, args.peer_rounds
            )
            print(f"   ({_took(began)})", flush=True)
        if not args.no_concurrency:
            began = _section("concurrency: CPU per stream as streams grow")
            results.concurrency = await concurrency_table(
                server, args.concurrency, rounds=args.concurrency_rounds
            )
            print(f"   ({_took(began)})", flush=True)


async def _proxy_and_first_event(args: argparse.Namespace, results: Results) -> None:
    """The sections after the import times (they read from a loopback server of their own)."""
    with LoopbackServer() as server:
        if not args.no_proxy:
            began = _section("proxy: what pi-sdk serve adds to a stream")
            results.proxy = await _proxy_cost.measure(
                server,
                args.proxy_rounds,
                tuple(args.proxy_streams),
                litellm="litellm" in args.consumers,
            )
            _proxy_cost.print_proxy_cost(results.proxy, args.proxy_rounds)
            print(f"   ({_took(began)})", flush=True)
        if not args.no_first_event:
            began = _section("first-event: time to the first event against the first byte")
            results.first_event = await _first_event.measure(
                server, args.apis, args.first_event_rounds
            )
            _first_event.print_first_event(results.first_event, args.first_event_rounds)
            print(f"   ({_took(began)})", flush=True)


def main() -> None:
    args = _arguments()
    began = _clocks()
    _header(args)
    results = Results()
    asyncio.run(_streams(args, results))
    if not args.no_memory:
        start = _section("memory: an idle Agent's transcript")
        try:
            results.memory = _memory.measure()
            _memory.print_memory(results.memory)
        except RuntimeError as exc:  # the JSON did not round-trip: the target line says so
            results.memory_problem = str(exc)
            print(f"  {exc}")
        print(f"   ({_took(start)})", flush=True)
    if not args.no_turns:
        start = _section("turns: CPU per agent turn as the transcript grows")
        results.turns = _turns.measure(args.turn_rounds, tuple(args.turns))
        _turns.print_turns(results.turns, args.turn_rounds)
        print(f"   ({_took(start)})", flush=True)
    if not args.no_import:
        start = _section("import: fresh processes against import pydantic")
        results.imports = _import_time.measure(args.import_rounds)
        _import_time.print_import(results.imports, args.import_rounds)
        print(f"   ({_took(start)})", flush=True)
    if not (args.no_proxy and args.no_first_event):
        asyncio.run(_proxy_and_first_event(args, results))
    print_targets(results)
    print(f"\nrun took {_took(began)} (CPU: this process, the server, the import samples)")


if __name__ == "__main__":
    main()
