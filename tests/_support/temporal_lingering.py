"""The docs example with the exit race made wide: ``python temporal_lingering.py MODE``.

temporalio's bridge hands each call's result to asyncio from a native thread that calls the
loop's ``call_soon_threadsafe``; its wake-up write releases the GIL, and the woken main thread
may finish the program before the native thread is out of Python. Here every such native thread
stays in Python 50 ms longer after its write (sleeping, the GIL released), so the main thread
reaches interpreter finalization under it on nearly every run; without pi-sdk-temporal's exit
hook the process then aborts (SIGABRT, SIGSEGV or SIGBUS) after printing its output.
``MODE`` is the example's (``both``, ``client``); ``TEMPORAL_ADDRESS`` as for the example.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import threading
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "temporal_example.py"
LINGER_S = 0.05

_write_to_self = asyncio.selector_events.BaseSelectorEventLoop._write_to_self  # pyright: ignore[reportPrivateUsage]


def _lingering_write_to_self(loop: asyncio.selector_events.BaseSelectorEventLoop) -> None:
    _write_to_self(loop)
    if threading.get_ident() not in {thread.ident for thread in threading.enumerate()}:
        time.sleep(LINGER_S)  # a native thread: stay in Python, the GIL released


def main(mode: str) -> None:
    asyncio.selector_events.BaseSelectorEventLoop._write_to_self = _lingering_write_to_self  # pyright: ignore[reportPrivateUsage]
    spec = importlib.util.spec_from_file_location("temporal_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    asyncio.run(example.main(mode))


if __name__ == "__main__":
    main(sys.argv[1])
