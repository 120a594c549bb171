"""Benchmark: streamed tool arguments cost linear time with IncrementalJsonParser.

Streams tool-call argument JSON of about 20 KB and 200 KB in 16-byte deltas, in two shapes:

- ``fields``: one object with many small fields (short strings, small arrays and objects,
  numbers, booleans, nulls);
- ``content``: ``{"path": ..., "content": ...}`` where content is one huge string full of escapes
  (quotes, backslashes, newlines, tabs, ``\\u`` escapes and surrogate pairs).

For each, it times ``IncrementalJsonParser`` (feed every delta, read ``value`` after each one as a
provider does, then ``finish()``) and the naive pi-mono approach (append the delta to a buffer and
re-parse the whole buffer with ``parse_partial_json`` on every delta), and prints the time per run
and the ratio time(200 KB) / time(20 KB): about 10 means linear, about 100 quadratic.

Times are the best of several runs (``time.perf_counter``, garbage collector off while timing;
``--clock process_time`` measures CPU time instead, steadier on a busy machine).
The naive baseline on 200 KB would take minutes, so by default it parses the buffer at every k-th
delta only (k chosen so that about 1,250 parses are timed) and multiplies by k; the output says
when it did. ``--naive-stride 1`` times every delta.

Run with ``uv run python benchmarks/bench_partial_json.py [--repeats N] [--naive-repeats N]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from collections.abc import Callable
from functools import partial

from pi_sdk._stream.partial_json import IncrementalJsonParser, parse_partial_json

DELTA = 16
SIZES = (20_000, 200_000)


def fields_document(size: int) -> str:
    rng = random.Random(1)
    fields: dict[str, object] = {}
    length = 2
    while length < size:
        i = len(fields)
        kind = i % 5
        value: object
        if kind == 0:
            value = f"value {i} " + "x" * rng.randrange(20)
        elif kind == 1:
            value = [rng.randrange(1000) for _ in range(rng.randrange(1, 6))]
        elif kind == 2:
            value = {"id": i, "enabled": i % 2 == 0, "ratio": round(rng.random(), 4), "note": None}
        elif kind == 3:
            value = rng.uniform(-1e6, 1e6)
        else:
            value = ["tag-a", "tag-b", {"k": i, "deep": [True, False]}]
        fields[f"field_{i}"] = value
        length += len(json.dumps({f"field_{i}": value}))  # its braces stand for the ", "
    return json.dumps(fields)


def content_document(size: int) -> str:
    lines = [
        'def greet(name: str) -> str:\n\treturn f"Hello, {name}!"  # says \\"hi\\"\n',
        "PATH = r'C:\\Users\\me\\file.txt'\n",
        "print('caf\u00e9 \u4e2d\u6587 \U0001f600 done')\n",
        '    data = {"key": [1, 2, 3], "other": "a/b/c"}\r\n',
        "\n",
    ]
    rng = random.Random(2)
    parts: list[str] = []
    length = 0
    target = size - 40
    while length < target:
        line = rng.choice(lines)
        parts.append(line)
        length += len(json.dumps(line)) - 2
    return json.dumps({"path": "src/generated_module.py", "content": "".join(parts)})


def split(doc: str) -> list[str]:
    return [doc[i : i + DELTA] for i in range(0, len(doc), DELTA)]


def incremental(deltas: list[str]) -> None:
    parser = IncrementalJsonParser()
    for delta in deltas:
        parser.feed(delta)
        _ = parser.value
    if parser.finish() is None:
        raise AssertionError("the benchmark document did not parse")


def naive(deltas: list[str], stride: int) -> None:
    buffer = ""
    for index, delta in enumerate(deltas):
        buffer += delta
        if index % stride == 0:
            parse_partial_json(buffer)


def best_time(run: Callable[[], None], repeats: int, clock: Callable[[], float]) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = clock()
            run()
            best = min(best, clock() - start)
        finally:
            gc.enable()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description="Time IncrementalJsonParser against re-parsing.")
    parser.add_argument("--repeats", type=int, default=15, help="runs of the incremental parser")
    parser.add_argument("--naive-repeats", type=int, default=2, help="runs of the naive baseline")
    parser.add_argument(
        "--naive-stride",
        type=int,
        default=0,
        help="parse the naive buffer at every k-th delta only (0: about 1,250 parses per run)",
    )
    parser.add_argument("--clock", choices=["perf_counter", "process_time"], default="perf_counter")
    args = parser.parse_args()
    clock: Callable[[], float] = getattr(time, args.clock)

    print(
        f"deltas of {DELTA} characters; time.{args.clock}, best of {args.repeats} runs"
        f" (naive: {args.naive_repeats})"
    )
    header = f"{'shape':8} {'method':12} {'20 KB':>12} {'200 KB':>12} {'ratio':>7}  note"
    print(header)
    print("-" * len(header))
    for shape, make in (("fields", fields_document), ("content", content_document)):
        docs = [make(size) for size in SIZES]
        deltas = [split(doc) for doc in docs]
        for doc in docs:
            assert parse_partial_json(doc) == json.loads(doc)
        times = [best_time(partial(incremental, d), args.repeats, clock) for d in deltas]
        sizes = " / ".join(f"{len(doc):,}" for doc in docs)
        print(
            f"{shape:8} {'incremental':12} {times[0] * 1e3:9.2f} ms {times[1] * 1e3:9.2f} ms"
            f" {times[1] / times[0]:7.1f}  sizes {sizes} chars"
        )
        naive_times: list[float] = []
        notes: list[str] = []
        for d in deltas:
            stride = args.naive_stride or max(1, len(d) // 1250)
            naive_times.append(
                stride * best_time(partial(naive, d, stride), args.naive_repeats, clock)
            )
            if stride > 1:
                notes.append(f"{len(d):,} deltas: every {stride}th timed, x{stride}")
        print(
            f"{shape:8} {'naive':12} {naive_times[0] * 1e3:9.2f} ms {naive_times[1] * 1e3:9.2f} ms"
            f" {naive_times[1] / naive_times[0]:7.1f}  {'; '.join(notes) or 'every delta timed'}"
        )


if __name__ == "__main__":
    main()
