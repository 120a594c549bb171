"""The shared usage store's other paths and the proxy's outcome lines
(``pi_sdk/_serve/usage_store.py``, ``pi_sdk/_serve/outcome_log.py``): without a rate limit
every request is admitted and nothing is written; a failure inside the admission transaction
rolls it back whole (the store stays usable, nothing half-counted); each way a call ends is
logged with its whole line.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import pi_sdk
from pi_sdk._serve.outcome_log import LOGGER_NAME, log_outcome, log_refusal
from pi_sdk._serve.usage_store import RateLimit, UsageStore


async def test_without_a_rate_limit_every_request_is_admitted_and_nothing_written(tmp_path: Path):
    path = tmp_path / "usage.sqlite"
    store = UsageStore(path)
    assert [await store.admit("app") for _ in range(3)] == [None, None, None]
    assert not path.exists()


def test_a_failure_in_the_admission_rolls_it_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    store = UsageStore(tmp_path / "usage.sqlite", rate_limit=RateLimit(requests=1, window_s=60))
    assert store._admit("app", 1_000.0) is None  # pyright: ignore[reportPrivateUsage]

    def broken(db: Any, key: str, **counts: float) -> None:
        db.execute("INSERT INTO admitted (key, at) VALUES (?, ?)", (key, 1_000.5))
        raise RuntimeError("disk full")

    monkeypatch.setattr(UsageStore, "_add", staticmethod(broken))
    with pytest.raises(RuntimeError, match="disk full"):
        store._admit("app", 1_001.0)  # pyright: ignore[reportPrivateUsage]
    monkeypatch.undo()
    # rolled back: no open transaction, the row inserted before the failure is gone
    assert store._admit("app", 1_002.0) == 58.0  # pyright: ignore[reportPrivateUsage]
    assert store.usage_now("app").refused == 1
    assert store._admit("app", 1_060.0) is None  # pyright: ignore[reportPrivateUsage]


def _message(stop: str, error: str | None = None) -> pi_sdk.AssistantMessage:
    message = pi_sdk.AssistantMessage(api="a", provider="p", model="m")
    message.stop_reason = stop  # type: ignore[assignment]
    message.error_message = error
    message.usage.input, message.usage.output = 12, 3
    return message


SCOPE = {"client": ("10.0.0.7", 51234)}


HERE = "10.0.0.7:51234 p/m 200"
NOWHERE = "- p/m 200"
INFO, WARNING = logging.INFO, logging.WARNING


@pytest.mark.parametrize(
    ("scope", "message", "error", "level", "line"),
    [
        (SCOPE, None, None, INFO, f"{HERE} aborted: the client disconnected · 1.50 s"),
        (SCOPE, _message("stop"), None, INFO, f"{HERE} done (stop) 12 in · 3 out · 1.50 s"),
        (
            SCOPE,
            _message("aborted", "Request was aborted"),
            None,
            INFO,
            f"{HERE} aborted: Request was aborted · 1.50 s",
        ),
        (SCOPE, _message("aborted"), None, INFO, f"{HERE} aborted: - · 1.50 s"),
        (
            SCOPE,
            _message("error", "529 Overloaded:\n  try later"),
            None,
            WARNING,
            f"{HERE} error 529: 529 Overloaded: try later · 1.50 s",
        ),
        (SCOPE, None, "it raised", WARNING, f"{HERE} error: it raised · 1.50 s"),
        (SCOPE, _message("error"), None, WARNING, f"{HERE} error: unknown · 1.50 s"),
        (
            {"client": None},
            None,
            None,
            INFO,
            f"{NOWHERE} aborted: the client disconnected · 1.50 s",
        ),
        ("not a scope", None, None, INFO, f"{NOWHERE} aborted: the client disconnected · 1.50 s"),
        (
            {"client": ["h", 1, 2]},
            None,
            None,
            INFO,
            f"{NOWHERE} aborted: the client disconnected · 1.50 s",
        ),
    ],
)
def test_each_outcome_line(
    caplog: pytest.LogCaptureFixture, scope: Any, message: Any, error: Any, level: int, line: str
):
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        log_outcome(scope, "p/m", message, error, 1.5)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(level, line)]


def test_a_refusal_line_is_one_line_and_cut(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        log_refusal(SCOPE, 400, "bad\n\tbody " + "x" * 400)
    (record,) = caplog.records
    text = record.getMessage()
    assert text.startswith("10.0.0.7:51234 400 refused: bad body xxx")
    reason = text.removeprefix("10.0.0.7:51234 400 refused: ")
    assert len(reason) == 300 and reason.endswith("x…")
