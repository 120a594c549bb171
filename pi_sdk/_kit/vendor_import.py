"""Importing a vendor SDK without blocking the event loop.

Vendor SDKs are imported lazily, on a provider's first call, so ``import pi_sdk`` stays cheap.
Importing one takes 0.4-1.5 s (measured here: ``anthropic`` about 1.2 s, ``google.genai`` about
0.6 s); done on the event loop, that would freeze every other task of a server for that long.
:func:`import_vendor` runs the first import in a worker thread instead.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["import_vendor"]


async def import_vendor(name: str) -> ModuleType:
    """Return the module ``name``, importing it in a worker thread the first time.

    Args:
        name: A module name, e.g. ``"anthropic"`` or ``"google.genai"``.

    Raises:
        ImportError: the module is not installed (the caller's stream turns it into an
            ``error`` event naming the package to install).
    """
    module = sys.modules.get(name)
    if module is not None:
        return module
    import asyncio  # a first vendor import runs in a loop: asyncio is there already

    return await asyncio.to_thread(importlib.import_module, name)
