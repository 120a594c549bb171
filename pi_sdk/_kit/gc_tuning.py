"""tune_gc_for_streams: the cyclic GC settings for a server with many concurrent streams.

CPython's cyclic garbage collector walks every live container object of the generations it
collects. A stream in flight holds a few hundred of them (the SDK's request, the HTTP
connection's state, the generator frames, pi-sdk's message): about 270 per Chat Completions
stream through the openai SDK. With a thousand streams at once, those objects survive the young
collections (every 700 net allocations by default), reach the oldest generation, and trigger
full collections, each walking the whole heap, imported modules included: the GC's share of a
stream's CPU time grows with the number of streams (issue 16: 0.2 ms per stream at 100
concurrent streams, 0.8 ms at 1,000). This module applies the remedy Instagram described for
its servers ("Dismissing Python Garbage Collection at Instagram", 2017; ``gc.freeze`` is the
Python 3.7 API it led to):

* ``gc.freeze()`` once start-up is over: everything imported and built so far moves to a
  permanent generation no collection walks again;
* a young generation collected every ``young`` net allocations instead of 700, so a burst of
  streams does not push its in-flight objects into the older generations.

It is opt-in: the settings are process-wide, and a larger young generation keeps cyclic garbage
longer (up to ``young`` objects) and makes each young collection pause longer.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

__all__ = ["tune_gc_for_streams"]


def tune_gc_for_streams(*, young: int = 50_000) -> Callable[[], None]:
    """Freeze the start-up heap and enlarge the GC's young generation (opt-in, process-wide).

    Call it once, after start-up (imports, clients built, before serving): it runs a full
    collection, freezes what is left (``gc.freeze``: never walked again) and sets the young
    generation's threshold to ``young`` net container allocations (the older generations'
    thresholds are kept: a full collection every ``young * threshold1 * threshold2``
    allocations at most). Measured by ``benchmarks/run.py`` (the ``tuned`` column of the
    concurrency table): the GC's CPU per stream at 1,000 concurrent streams falls from about
    0.8 ms to about 0.2 ms, and the whole stream's CPU stays flat from 100 to 1,000 streams.
    Costs: cyclic garbage waits for up to ``young`` allocations; a young collection pauses for
    as long as walking up to ``young`` objects takes (milliseconds); objects frozen and freed
    later are reclaimed only once unfrozen.

    Args:
        young: The young generation's threshold (``gc.set_threshold``'s first value; 700 by
            default up to CPython 3.13, 2,000 in 3.14): net container allocations between young
            collections.

    Returns:
        A function that undoes both (``gc.unfreeze()`` and the previous thresholds), for
        tests and benchmarks; a server does not need it.

    Raises:
        ValueError: ``young`` is below 1.
    """
    if young < 1:
        raise ValueError(f"young must be >= 1, not {young}")
    previous = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, *previous[1:])

    def restore() -> None:
        gc.unfreeze()
        gc.set_threshold(*previous)

    return restore
