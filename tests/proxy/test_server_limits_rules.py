"""The proxy's connection limits (``pi_sdk/_serve/limits.py``): the default cap from the
descriptor limit at each of its bounds, the settings refused with their whole message, and
the loop's exception handler that counts failed ``accept()`` calls and hands every other
error to the handler that was there (or asyncio's default).
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

import pytest

from pi_sdk._serve import limits as limits_module
from pi_sdk._serve.limits import ServerLimits, default_max_connections, quiet_accept_errors
from pi_sdk._serve.outcome_log import LOGGER_NAME


@pytest.mark.parametrize(
    ("soft", "cap"),
    [
        (resource.RLIM_INFINITY, 10_000),
        (1_024, 462),
        (132, 16),  # (132 - 100) // 2 = 16
        (100, 16),  # never below 16
        (20_100, 10_000),
        (20_099, 9_999),
    ],
)
def test_the_default_cap_is_half_the_descriptor_limit_less_100_within_bounds(
    monkeypatch: pytest.MonkeyPatch, soft: int, cap: int
):
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, resource.RLIM_INFINITY))
    assert default_max_connections() == cap
    assert ServerLimits().max_connections == cap  # 0: the default, read now


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"header_timeout_s": 0},
            "the header and idle timeouts must be positive, got 0 and 5.0",
        ),
        (
            {"idle_timeout_s": -1.5},
            "the header and idle timeouts must be positive, got 10.0 and -1.5",
        ),
        ({"max_connections": -1}, "max_connections must be at least 1, got -1"),
    ],
)
def test_settings_that_cannot_work_are_refused(settings: dict[str, Any], message: str):
    with pytest.raises(ValueError) as caught:
        ServerLimits(**settings)
    assert str(caught.value) == message
    assert ServerLimits(max_connections=1).max_connections == 1


def _accept_failure() -> dict[str, Any]:
    return {"message": "socket.accept() out of system resources", "exception": OSError(24, "x")}


def test_failed_accepts_are_counted_and_other_errors_go_to_the_previous_handler(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    loop = asyncio.new_event_loop()
    try:
        seen: list[str] = []
        loop.set_exception_handler(lambda lp, context: seen.append(context["message"]))
        now = [1_000.0]
        monkeypatch.setattr(loop, "time", lambda: now[0])
        quiet_accept_errors(loop)
        with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
            for _ in range(3):
                loop.call_exception_handler(_accept_failure())
            now[0] += limits_module._REPORT_EVERY_S  # pyright: ignore[reportPrivateUsage]
            loop.call_exception_handler(_accept_failure())
            loop.call_exception_handler({"message": "Task exception was never retrieved"})
        assert seen == ["Task exception was never retrieved"]
        reports = [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME]
        what = (
            "cannot accept connections: out of file descriptors (raise `ulimit -n` or lower"
            " --max-connections)"
        )
        assert reports == [
            f"{what} (1 since the last report)",
            f"{what} (3 since the last report)",
        ]
    finally:
        loop.close()


def test_without_a_previous_handler_other_errors_get_asyncios_default(
    monkeypatch: pytest.MonkeyPatch,
):
    loop = asyncio.new_event_loop()
    try:
        defaults: list[dict[str, Any]] = []
        monkeypatch.setattr(loop, "default_exception_handler", defaults.append)
        quiet_accept_errors(loop)
        loop.call_exception_handler(_accept_failure())
        assert defaults == []
        loop.call_exception_handler({"message": "something else"})
        assert defaults == [{"message": "something else"}]
    finally:
        loop.close()
