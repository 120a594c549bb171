"""The targets summary that ends ``run.py``: one line per target of issue 16, met or not.

Each line: the target's number, what is measured, the value of this run, the target, and a
verdict, ``met``, ``NOT MET`` or ``not measured`` (the section was skipped or could not run).
The memory targets of the issue are sizes of its own transcript (the Agent 16 KiB where plain
dicts took 14.7 KiB and pydantic-ai's messages 15.4 KiB); the transcript of ``_memory.py`` is
larger, so they are judged as the same ratios: at most 16 / 14.7 of plain dicts and 16 / 15.4 of
pydantic-ai's messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from _first_event import FirstEvent
from _memory import Memory
from _proxy_cost import ProxyCost
from _side_by_side import SideBySide

PER_EVENT = 1.2
CONCURRENCY = 1.2
AGENT_KIB, DICTS_KIB, PYDANTIC_AI_KIB = 16.0, 14.7, 15.4
TURNS = 1.3
FIRST_USE_MS, DISCOVERY_MS = 100.0, 50.0
SERVE_ADDED, LITELLM_FACTOR = 0.5, 5.0
FIRST_EVENT_MS = 1.0
DEFAULT_TRANSPORT = "pooled"
"""The concurrency column of the transport pi-sdk's providers use by default."""


@dataclass
class Results:
    """What the sections of one run measured (``None``: the section did not run)."""

    side_by_side: SideBySide | None = None
    concurrency: dict[str, dict[int, float]] | None = None
    memory: Memory | None = None
    memory_problem: str = ""
    turns: dict[int, float] | None = None
    imports: dict[str, float] | None = None
    proxy: ProxyCost | None = None
    first_event: dict[str, FirstEvent] | None = None


class Line(NamedTuple):
    """One line of the summary."""

    number: str
    what: str
    value: str
    target: str
    verdict: str


def _line(number: str, what: str, value: str, target: str, met: bool | None) -> Line:
    """A line; its verdict ``met``, ``NOT MET`` or (``met`` is ``None``) ``not measured``."""
    return Line(
        number, what, value, target, "not measured" if met is None else "met" if met else "NOT MET"
    )


def _per_event(results: Results) -> list[Line]:
    what, target = "per-event CPU, pi-sdk / floor, worst cell", f"<= {PER_EVENT}x every cell"
    table = results.side_by_side
    if table is None:
        return [_line("1", what, "-", target, None)]
    cells = [(api, w.name) for api in table.apis for w in table.workloads]
    ratios = {f"{api}/{name}": table.ratio(api, name, "pi-sdk") for api, name in cells}
    measured = {cell: ratio for cell, ratio in ratios.items() if ratio is not None}
    if not measured:
        return [_line("1", what, "no pi-sdk cell ran", target, None)]
    worst = max(measured, key=lambda cell: measured[cell])
    within = sum(ratio <= PER_EVENT for ratio in measured.values())
    value = f"{measured[worst]:.2f}x ({worst}); {within}/{len(ratios)} cells within"
    # a cell without a figure (an error, a wrong output) is not within
    return [_line("1", what, value, target, within == len(ratios))]


def _concurrency(results: Results) -> list[Line]:
    medians, target = results.concurrency, f"<= {CONCURRENCY}x"
    if not medians:
        return [_line("2", "per-stream CPU, most / fewest streams", "-", target, None)]
    name = DEFAULT_TRANSPORT if DEFAULT_TRANSPORT in medians else next(iter(medians))
    levels = list(medians[name])
    first, last = levels[0], levels[-1]
    ratios = {n: m[last] / m[first] for n, m in medians.items()}
    others = ", ".join(f"{n} {r:.2f}x" for n, r in ratios.items() if n != name)
    what = f"per-stream CPU, {last:,} / {first:,} streams, {name}"
    value = f"{ratios[name]:.2f}x ({others})"
    return [_line("2", what, value, target, ratios[name] <= CONCURRENCY)]


def _memory(results: Results) -> list[Line]:
    memory = results.memory
    to_dicts, to_peer = "idle 20-message Agent / plain dicts", "idle 20-message Agent / pydantic-ai"
    wire = "wire JSON of the transcript unchanged"
    dicts_bound, peer_bound = AGENT_KIB / DICTS_KIB, AGENT_KIB / PYDANTIC_AI_KIB
    dicts_target = f"<= {dicts_bound:.2f}x ({AGENT_KIB:g} / {DICTS_KIB:g} KiB)"
    peer_target = f"<= {peer_bound:.2f}x ({AGENT_KIB:g} / {PYDANTIC_AI_KIB:g} KiB)"
    if memory is None:
        problem = results.memory_problem
        return [
            _line("3a", to_dicts, "-", dicts_target, None),
            _line("3b", to_peer, "-", peer_target, None),
            _line("3c", wire, problem or "-", "same", False if problem else None),
        ]

    def kib(size: int) -> str:
        return f"{size / 1024:.1f} KiB"

    agent, dicts = memory.sizes["pi-sdk Agent"], memory.sizes["plain dicts"]
    value = f"{agent / dicts:.2f}x ({kib(agent)} / {kib(dicts)})"
    lines = [_line("3a", to_dicts, value, dicts_target, agent / dicts <= dicts_bound)]
    peer = memory.sizes.get("pydantic-ai")
    if peer is None:
        lines.append(_line("3b", to_peer, "pydantic-ai absent", peer_target, None))
    else:
        value = f"{agent / peer:.2f}x ({kib(agent)} / {kib(peer)})"
        lines.append(_line("3b", to_peer, value, peer_target, agent / peer <= peer_bound))
    return [*lines, _line("3c", wire, "same JSON", "same", True)]


def _turns(results: Results) -> list[Line]:
    best, target = results.turns, f"<= {TURNS}x"
    if not best:
        return [_line("4", "per-turn CPU, most / fewest turns", "-", target, None)]
    first, last = min(best), max(best)
    ratio = best[last] / best[first]
    value = f"{ratio:.2f}x ({best[last] * 1e6:.0f} / {best[first] * 1e6:.0f} µs)"
    return [_line("4", f"per-turn CPU, {last:,} / {first:,} turns", value, target, ratio <= TURNS)]


def _imports(results: Results) -> list[Line]:
    medians = results.imports
    first_use, discovery = "import pi_sdk + first use", "plugin discovery, on top"
    use_target, discovery_target = f"<= {FIRST_USE_MS:.0f} ms", f"<= {DISCOVERY_MS:.0f} ms"
    if not medians:
        return [
            _line("5a", first_use, "-", use_target, None),
            _line("5b", discovery, "-", discovery_target, None),
        ]
    base = medians["pydantic"]
    used, bare, found = medians["first use"], medians["import pi_sdk"], medians["plugin discovery"]
    return [
        _line(
            "5a",
            first_use,
            f"{used:.1f} ms, {used / base:.2f}x pydantic (bare import {bare:.1f} ms)",
            use_target,
            used <= FIRST_USE_MS,
        ),
        _line(
            "5b",
            discovery,
            f"{found:.1f} ms, {found / base:.2f}x pydantic (pydantic {base:.1f} ms)",
            discovery_target,
            found <= DISCOVERY_MS,
        ),
    ]


def _proxy(results: Results) -> list[Line]:
    target, versus = f"<= {SERVE_ADDED}x direct", f">= {LITELLM_FACTOR:g}x"
    lines: list[Line] = []
    levels = sorted(results.proxy.levels) if results.proxy else []
    levels = [levels[0], levels[-1]] if levels else [1, 200]
    for number, level in zip(("6a", "6b"), levels, strict=True):
        what = f"CPU serve adds per stream, {level} at once"
        added = results.proxy.added(level, "serve") if results.proxy else None
        if added is None:
            lines.append(_line(number, what, "-", target, None))
            continue
        value = f"{added[0]:.2f}x direct, first event +{added[1] * 1e3:.2f} ms"
        lines.append(_line(number, what, value, target, added[0] <= SERVE_ADDED))
    what = "LiteLLM proxy's added CPU / serve's, worst level"
    factors = []
    for level in levels:
        ours = results.proxy.added(level, "serve") if results.proxy else None
        theirs = results.proxy.added(level, "litellm") if results.proxy else None
        if ours is not None and theirs is not None:
            factors.append(theirs[0] / ours[0] if ours[0] > 0 else float("inf"))
    if not factors:
        reason = results.proxy.missing.get("litellm", "-") if results.proxy else "-"
        lines.append(_line("6c", what, reason, versus, None))
    else:
        lines.append(_line("6c", what, f"{min(factors):.1f}x", versus, min(factors) >= 5))
    return lines


def _first_event_line(results: Results) -> list[Line]:
    what, target = (
        "time to first event - floor's first byte, worst API",
        f"<= {FIRST_EVENT_MS:g} ms",
    )
    if not results.first_event:
        return [_line("7", what, "-", target, None)]
    medians = results.first_event
    worst = max(medians, key=lambda api: medians[api].added)
    added = medians[worst].added * 1e3
    return [_line("7", what, f"{added:.2f} ms ({worst})", target, added <= FIRST_EVENT_MS)]


def print_targets(results: Results) -> None:
    """Print the summary of every target from what ``results`` holds."""
    judges = (_per_event, _concurrency, _memory, _turns, _imports, _proxy, _first_event_line)
    lines = [line for judge in judges for line in judge(results)]
    print("\ntargets (issue 16)")
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    for line in lines:
        cells = "  ".join(f"{text:<{width}}" for text, width in zip(line, widths, strict=False))
        print(f"  {cells}  {line.verdict}")
