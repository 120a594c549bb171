"""Fixtures of the proxy tests; the proxy itself is in ``_support.proxy``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the proxy tests need the serve extra (starlette, uvicorn)")

from _support.proxy import VENDOR_KEY, serving_proxy  # noqa: E402


@pytest.fixture
def serve_proxy(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``async with serve_proxy(steps, **policy) as proxy:``, with the vendor key set."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", VENDOR_KEY)
    return serving_proxy
