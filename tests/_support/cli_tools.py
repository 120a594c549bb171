"""Tools for the CLI tests, loaded with ``pi-sdk chat --tools tests/_support/cli_tools.py:ATTR``."""

from __future__ import annotations

import asyncio

import pi_sdk


@pi_sdk.tool
async def sleep(seconds: float) -> str:
    """Sleep, then say so (ignores the abort signal: the Agent must cancel it).

    Args:
        seconds: How long to sleep.
    """
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"
