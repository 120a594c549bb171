"""Instructions per call of pi-sdk against the floor, per wire API, under callgrind (issue 32).

Load on a shared machine moves CPU times by more than the per-call differences being chased;
instruction counts do not. This script starts the loopback server (``_loopback_server.py``, not
measured), then runs itself under ``valgrind --tool=callgrind`` with collection off: the measured
process makes ``--warm`` untimed calls through each consumer of ``_consumers.py`` (``floor`` and
``pi-sdk``) on every API, then, per API and consumer, ``--calls`` calls inside one *region*. A
region is a call of ``operator.call`` (which nothing else calls) that runs the calls: callgrind
collects only inside its C function (``--toggle-collect``) and writes one profile per region
(``--dump-after``), so each profile holds the calls and nothing else. The table gives
instructions per call (the region's total divided by the calls) and pi-sdk's excess over the
floor; the profiles stay in ``--out`` for ``callgrind_annotate --inclusive=yes FILE``.

The default workload, ``one-delta`` (one text delta), is what a call costs apart from its bytes
(request building, hooks, the client's request path, the message and its events); any workload
of the runner can be chosen instead (``--workload args-20KB``).

callgrind sees Python functions only as the interpreter's loop; ``--opcodes K`` runs the same
calls without valgrind under a bytecode tracer (``_opcode_profile.py``) and prints bytecodes per
call per consumer and pi-sdk's ``K`` heaviest functions, inclusive: where its extra work goes,
by function, as deterministic as the instruction counts.

Run: ``uv run python benchmarks/bench_callgrind.py [--apis chat,bedrock] [--calls 20]
[--warm 3] [--workload one-delta] [--consumers floor,pi-sdk] [--out DIR] [--opcodes K]``
(about a minute per API under valgrind).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import operator
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

from _consumers import AWS, Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _opcode_profile import OpcodeProfile
from _wire_bodies import APIS, body
from _workloads import Workload, workloads

CONSUMERS: dict[str, Callable[[str, str], Run]] = {
    "floor": floor_consumer,
    "pi-sdk": pi_sdk_consumer,
}
ONE_DELTA = Workload("one-delta", text=["hi"])


def _workload(name: str) -> Workload:
    chosen = [w for w in [ONE_DELTA, *workloads()] if w.name == name]
    if not chosen:
        raise SystemExit(f"unknown workload {name}")
    return chosen[0]


def _region(action: Callable[[], None]) -> None:
    """Run ``action`` inside ``operator.call`` (its C function is what callgrind collects)."""
    operator.call(action)


def _select(url: str, name: str) -> None:
    request = urllib.request.Request(f"{url}/__select__/{name}", method="POST", data=b"")
    with urllib.request.urlopen(request) as response:
        response.read()


def _measure(args: argparse.Namespace) -> None:
    """The measured process: warm-up calls, then one region per (API, consumer)."""
    os.environ.update(AWS)
    workload = _workload(args.workload)
    loop = asyncio.new_event_loop()
    runs = {(a, c): CONSUMERS[c](a, args.url) for a in args.apis for c in args.consumers}

    async def calls(run: Run, number: int) -> None:
        want = workload.expected()
        for _ in range(number):
            got = await run()
            assert (got.text, got.calls) == (want.text, want.calls), "wrong output"

    for (api, _consumer), run in runs.items():
        _select(args.url, f"{api}-{workload.name}")
        loop.run_until_complete(calls(run, args.warm))
    regions: list[list[str]] = []
    for (api, consumer), run in runs.items():
        _select(args.url, f"{api}-{workload.name}")
        gc.collect()
        _region(lambda run=run: loop.run_until_complete(calls(run, args.calls)))
        regions.append([api, consumer])
    Path(args.regions).write_text(json.dumps(regions))


def _opcodes(args: argparse.Namespace) -> None:
    """``--opcodes K``: no valgrind; bytecodes per call, and pi-sdk's top ``K`` functions."""
    os.environ.update(AWS)
    workload = _workload(args.workload)
    loop = asyncio.new_event_loop()
    with LoopbackServer() as server:
        for api in args.apis:
            server.add(f"{api}-{workload.name}", *body(api, workload))
            server.select(f"{api}-{workload.name}")
            totals: dict[str, float] = {}
            for consumer in args.consumers:
                run = CONSUMERS[consumer](api, server.url)

                async def calls(run: Run = run, number: int = args.calls) -> None:
                    for _ in range(number):
                        await run()

                loop.run_until_complete(calls(number=args.warm))
                profile = OpcodeProfile()
                profile.run(lambda calls=calls: loop.run_until_complete(calls()))
                totals[consumer] = profile.total / args.calls
                if consumer != "floor":
                    print(f"\n{api} {consumer}: bytecodes per call, inclusive (calls per call)")
                    for name, count in profile.inclusive.most_common(args.opcodes):
                        per_call = profile.calls[name] / args.calls
                        print(f"{count / args.calls:9.0f} {per_call:6.1f}  {name}")
            print(
                f"{api}: bytecodes per call " + ", ".join(f"{c} {n:.0f}" for c, n in totals.items())
            )
    loop.close()


def _total(profile: Path) -> int:
    """The instructions a callgrind profile counted (its ``summary:``/``totals:`` line)."""
    text = profile.read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def _run(args: argparse.Namespace) -> None:
    """Start the server, run ``_measure`` under callgrind, print instructions per call."""
    workload = _workload(args.workload)
    out = Path(args.out or tempfile.mkdtemp(prefix="pi-callgrind-"))
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("callgrind.out*"):
        stale.unlink()
    regions = out / "regions.json"
    with LoopbackServer() as server:
        for api in args.apis:
            server.add(f"{api}-{workload.name}", *body(api, workload))
        command = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=_operator_call",
            "--dump-after=_operator_call",
            f"--callgrind-out-file={out}/callgrind.out",
            sys.executable,
            __file__,
            "--measure",
            server.url,
            "--regions",
            str(regions),
            "--apis",
            ",".join(args.apis),
            "--consumers",
            ",".join(args.consumers),
            "--calls",
            str(args.calls),
            "--warm",
            str(args.warm),
            "--workload",
            workload.name,
        ]
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    names = json.loads(regions.read_text())
    per_call: dict[tuple[str, str], float] = {}
    for number, (api, consumer) in enumerate(names, start=1):
        profile = out / f"callgrind.out.{number}"
        per_call[(api, consumer)] = _total(profile) / args.calls
        profile.rename(out / f"callgrind.{api}.{consumer}")
    print(f"instructions per call, {workload.name}, {args.calls} calls after {args.warm} warm-up")
    others = [c for c in args.consumers if c != "floor"]
    print(f"{'api':10} {'floor':>10}" + "".join(f" {c:>10} {'excess':>9}" for c in others))
    for api in args.apis:
        floor = per_call.get((api, "floor"))
        row = f"{api:10} " + (f"{floor / 1e6:9.3f}M" if floor else f"{'-':>10}")
        for consumer in others:
            mine = per_call[(api, consumer)]
            row += f" {mine / 1e6:9.3f}M"
            row += f" {(mine - floor) / 1e6:+8.3f}M" if floor else f" {'-':>9}"
        print(row)
    print(f"profiles: {out}/callgrind.<api>.<consumer>")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--apis", default=",".join(APIS))
    parser.add_argument("--consumers", default="floor,pi-sdk")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--workload", default=ONE_DELTA.name)
    parser.add_argument("--out")
    parser.add_argument("--opcodes", type=int, metavar="K", help="bytecode profile, no valgrind")
    parser.add_argument("--measure", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--regions", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.apis = [a for a in args.apis.split(",") if a]
    args.consumers = [c for c in args.consumers.split(",") if c]
    unknown = [a for a in args.apis if a not in APIS]
    unknown += [c for c in args.consumers if c not in CONSUMERS]
    if unknown:
        parser.error(f"unknown {', '.join(unknown)}")
    if args.measure:
        args.url = args.measure
        _measure(args)
    elif args.opcodes is not None:
        _opcodes(args)
    else:
        _run(args)


if __name__ == "__main__":
    main()
