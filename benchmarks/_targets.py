"""The targets summary that ends ``run.py``: one line per target of issue 16, met or not.

Each line: the target's number, what is measured, the value of this run, the target, and a
verdict, ``met``, ``NOT MET`` or ``not measured`` (the section was skipped or could not run).
The memory targets of the issue are sizes of its own transcript (the Agent 16 KiB where plain
dicts took 14.7 KiB and pydantic-ai's messages 15.4 KiB); the transcript of ``_memory.py`` is
larger, so they are judged as the same ratios: at most 16 / 14.7 of plain dicts and 16 / 15.4 of
pydantic-ai's messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from _memory import Memory
from _side_by_side import SideBySide

PER_EVENT = 1.2
CONCURRENCY = 1.2
AGENT_KIB, DICTS_KIB, PYDANTIC_AI_KIB = 16.0, 14.7, 15.4
TURNS = 1.3
FIRST_USE_MS, DISCOVERY_MS = 100.0, 50.0
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
    lines: list[tuple[str, str, str, str, str]] = field(default_factory=list)

    def add(self, number: str, what: str, value: str, target: str, met: bool | None) -> None:
        verdict = "not measured" if met is None else "met" if met else "NOT MET"
        self.lines.append((number, what, value, target, verdict))


def _per_event(results: Results) -> None:
    what = "per-event CPU, pi-sdk / floor, worst cell"
    table = results.side_by_side
    ratios = {}
    if table is not None:
        for api in table.apis:
            for workload in table.workloads:
                ratios[f"{api}/{workload.name}"] = table.ratio(api, workload.name, "pi-sdk")
    measured = {cell: ratio for cell, ratio in ratios.items() if ratio is not None}
    if not measured:
        results.add("1", what, "-", f"<= {PER_EVENT}x", None)
        return
    worst = max(measured, key=lambda cell: measured[cell])
    within = sum(ratio <= PER_EVENT for ratio in measured.values())
    value = f"{measured[worst]:.2f}x ({worst}); {within}/{len(ratios)} cells within"
    met = within == len(ratios)  # a cell without a figure (error, wrong output) is not met
    results.add("1", what, value, f"<= {PER_EVENT}x every cell", met)


def _concurrency(results: Results) -> None:
    medians = results.concurrency
    if not medians:
        results.add("2", "per-stream CPU, most / fewest streams", "-", f"<= {CONCURRENCY}x", None)
        return
    name = DEFAULT_TRANSPORT if DEFAULT_TRANSPORT in medians else next(iter(medians))
    levels = list(medians[name])
    first, last = levels[0], levels[-1]
    ratios = {n: m[last] / m[first] for n, m in medians.items()}
    others = ", ".join(f"{n} {r:.2f}x" for n, r in ratios.items() if n != name)
    what = f"per-stream CPU, {last:,} / {first:,} streams, {name}"
    value = f"{ratios[name]:.2f}x ({others})"
    results.add("2", what, value, f"<= {CONCURRENCY}x", ratios[name] <= CONCURRENCY)


def _memory(results: Results) -> None:
    memory = results.memory
    dicts_bound, peer_bound = AGENT_KIB / DICTS_KIB, AGENT_KIB / PYDANTIC_AI_KIB
    if memory is None:
        problem = results.memory_problem
        results.add(
            "3a", "idle 20-message Agent / plain dicts", "-", f"<= {dicts_bound:.2f}x", None
        )
        results.add("3b", "idle 20-message Agent / pydantic-ai", "-", f"<= {peer_bound:.2f}x", None)
        met = False if problem else None
        results.add("3c", "wire JSON of the transcript unchanged", problem or "-", "same", met)
        return
    sizes = memory.sizes
    agent, dicts = sizes["pi-sdk Agent"], sizes["plain dicts"]
    value = f"{agent / dicts:.2f}x ({agent / 1024:.1f} KiB / {dicts / 1024:.1f} KiB)"
    target = f"<= {dicts_bound:.2f}x ({AGENT_KIB:g} / {DICTS_KIB:g} KiB)"
    results.add(
        "3a", "idle 20-message Agent / plain dicts", value, target, agent / dicts <= dicts_bound
    )
    peer = sizes.get("pydantic-ai")
    what = "idle 20-message Agent / pydantic-ai"
    target = f"<= {peer_bound:.2f}x ({AGENT_KIB:g} / {PYDANTIC_AI_KIB:g} KiB)"
    if peer is None:
        results.add("3b", what, "pydantic-ai absent", target, None)
    else:
        value = f"{agent / peer:.2f}x ({agent / 1024:.1f} KiB / {peer / 1024:.1f} KiB)"
        results.add("3b", what, value, target, agent / peer <= peer_bound)
    results.add("3c", "wire JSON of the transcript unchanged", "same JSON", "same", True)


def _turns(results: Results) -> None:
    best = results.turns
    if not best:
        results.add("4", "per-turn CPU, most / fewest turns", "-", f"<= {TURNS}x", None)
        return
    first, last = min(best), max(best)
    ratio = best[last] / best[first]
    value = f"{ratio:.2f}x ({best[last] * 1e6:.0f} / {best[first] * 1e6:.0f} µs)"
    results.add(
        "4", f"per-turn CPU, {last:,} / {first:,} turns", value, f"<= {TURNS}x", ratio <= TURNS
    )


def _imports(results: Results) -> None:
    medians = results.imports
    first_use, discovery = "import pi_sdk + first use", "plugin discovery, more"
    if not medians:
        results.add("5a", first_use, "-", f"<= {FIRST_USE_MS:.0f} ms", None)
        results.add("5b", discovery, "-", f"<= {DISCOVERY_MS:.0f} ms", None)
        return
    base = medians["pydantic"]
    used, bare, found = medians["first use"], medians["import pi_sdk"], medians["plugin discovery"]
    value = f"{used:.1f} ms, {used / base:.2f}x pydantic (bare import {bare:.1f} ms)"
    results.add("5a", first_use, value, f"<= {FIRST_USE_MS:.0f} ms", used <= FIRST_USE_MS)
    value = f"{found:.1f} ms, {found / base:.2f}x pydantic ({base:.1f} ms)"
    results.add("5b", discovery, value, f"<= {DISCOVERY_MS:.0f} ms", found <= DISCOVERY_MS)


def print_targets(results: Results) -> None:
    """Print the summary of every target from what ``results`` holds."""
    for judge in (_per_event, _concurrency, _memory, _turns, _imports):
        judge(results)
    print("\ntargets (issue 16)")
    widths = [max(len(line[i]) for line in results.lines) for i in range(4)]
    for line in results.lines:
        cells = "  ".join(f"{text:<{width}}" for text, width in zip(line, widths, strict=False))
        print(f"  {cells}  {line[4]}")
