"""Mutations of real recorded bodies for the fuzz suite (``tests/fuzz``), and its budget.

Budget: ``PI_SDK_FUZZ_EXAMPLES`` examples per fuzz test (default :data:`DEFAULT_EXAMPLES`, the
CI budget: the whole suite stays well under 3 minutes on 2 cores). Seed: fixed (hypothesis
``derandomize``), so CI runs the same examples every time; ``PI_SDK_FUZZ_SEED=<int>`` runs a
different, reproducible set. A longer run: ``PI_SDK_FUZZ_EXAMPLES=5000 PI_SDK_FUZZ_SEED=7
pytest tests/fuzz -p no:timeout``. :data:`TRIED` counts the examples each test tried; the
fuzz conftest prints it at the end of the session.
"""

from __future__ import annotations

import os
import struct
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st

__all__ = ["DEFAULT_EXAMPLES", "TRIED", "fuzz", "mutated", "segments"]

DEFAULT_EXAMPLES = 30
"""Examples per fuzz test in CI."""

TRIED: Counter[str] = Counter()
"""Fuzz test name -> examples tried this session."""


def fuzz(scale: int = 1) -> Any:
    """Decorate a hypothesis test with the budget (times ``scale``) and the seed."""
    examples = int(os.environ.get("PI_SDK_FUZZ_EXAMPLES", DEFAULT_EXAMPLES)) * scale
    chosen = os.environ.get("PI_SDK_FUZZ_SEED")

    def decorate(test: Any) -> Any:
        test = settings(
            max_examples=examples,
            derandomize=chosen is None,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )(test)
        return test if chosen is None else seed(int(chosen))(test)

    return decorate


def segments(body: bytes, *, frames: bool) -> list[bytes]:
    """``body`` cut into its events: SSE events (each with its blank line) or AWS event-stream
    frames (by their length prelude); whatever does not parse is one last segment."""
    parts: list[bytes] = []
    if frames:
        at = 0
        while at + 4 <= len(body):
            (length,) = struct.unpack(">I", body[at : at + 4])
            if length < 16 or at + length > len(body):
                break
            parts.append(body[at : at + length])
            at += length
        if at < len(body):
            parts.append(body[at:])
        return parts
    rest = body
    while rest:
        end = rest.find(b"\n\n")
        if end < 0:
            parts.append(rest)
            break
        parts.append(rest[: end + 2])
        rest = rest[end + 2 :]
    return parts


MUTATIONS = ("flip", "cut", "duplicate", "swap", "huge", "deep", "bad_utf8", "garbage")


@st.composite
def mutated(draw: Any, body: bytes, frames: bool) -> tuple[str, bytes, int]:
    """``(mutation, damaged body, offset of the first damaged byte)`` for one real ``body``."""
    kind = draw(st.sampled_from(MUTATIONS))
    parts = segments(body, frames=frames)
    if kind in ("duplicate", "swap") and len(parts) >= 2:
        i = draw(st.integers(0, len(parts) - 1))
        j = draw(st.integers(0, len(parts) - 1))
        if kind == "duplicate":
            new = [*parts[: i + 1], parts[i], *parts[i + 1 :]]
        else:
            new = list(parts)
            new[i], new[j] = new[j], new[i]
        damaged = b"".join(new)
    else:
        at = draw(st.integers(0, max(len(body) - 1, 0)))
        if kind == "cut":
            damaged = body[:at]
        elif kind == "flip":
            damaged = body[:at] + bytes([body[at] ^ draw(st.integers(1, 255))]) + body[at + 1 :]
        elif kind == "huge":
            damaged = body[:at] + b"x" * draw(st.sampled_from([70_000, 400_000])) + body[at:]
        elif kind == "deep":
            depth = draw(st.sampled_from([200, 5_000, 100_000]))
            damaged = body[:at] + b"[" * depth + b"]" * depth + body[at:]
        elif kind == "bad_utf8":
            damaged = (
                body[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + body[at:]
            )
        else:
            damaged = body[:at] + draw(st.binary(min_size=1, max_size=64)) + body[at:]
    first = next((k for k, (a, b) in enumerate(zip(body, damaged, strict=False)) if a != b), None)
    return kind, damaged, min(len(body), len(damaged)) if first is None else first
