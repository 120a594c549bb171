"""Vendor log redaction, by logger name and by lifetime (issue 34).

Every top-level name of :data:`VENDOR_LOGGERS` (and its children) has its records redacted; a
logger outside them, even one whose name starts the same way, is left alone. A call's secrets
are redacted while it runs and no longer after it ends; an exception's text is redacted too.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from test_vendor_log_redaction_paths import _Keep  # pyright: ignore[reportPrivateUsage]

from pi_sdk._stream.log_redaction import VENDOR_LOGGERS, watch_call

SECRET = "custom-secret-0077"
# The vendor SDKs pi-sdk's providers use, their HTTP stacks, and pi-sdk itself.
LOGGERS = [
    "anthropic",
    "openai",
    "google_genai",
    "google",
    "mistralai",
    "botocore",
    "boto3",
    "urllib3",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "h11",
    "h2",
    "hpack",
    "pi_sdk",
]


@contextmanager
def _keep(name: str) -> Iterator[list[logging.LogRecord]]:
    logger = logging.getLogger(name)
    handler = _Keep()
    logger.addHandler(handler)
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


@pytest.mark.parametrize(
    ("name", "redacted"),
    [
        *[(top, True) for top in LOGGERS],
        *[(f"{top}._child.grand", True) for top in LOGGERS],
        ("anthropicx", False),
        ("my_app.anthropic", False),
        ("pi_sdk_extra", False),
        ("root_test_logger", False),
    ],
)
def test_records_are_redacted_by_top_level_logger_name(name: str, redacted: bool) -> None:
    with _keep(name) as records:
        done = watch_call(lambda: [SECRET])
        try:
            logging.getLogger(name).debug("key=%s", SECRET)
        finally:
            done()
    (record,) = records
    assert record.getMessage() == ("key=[REDACTED]" if redacted else f"key={SECRET}")


def test_the_vendor_loggers_are_exactly_these() -> None:
    assert set(LOGGERS) == VENDOR_LOGGERS


def test_a_calls_secrets_are_redacted_only_while_it_runs() -> None:
    logger = logging.getLogger("openai._lifetime")
    with _keep("openai._lifetime") as records:
        first = watch_call(lambda: [SECRET])
        second = watch_call(lambda: ["other-secret-0099"])
        logger.debug("%s %s", SECRET, "other-secret-0099")
        first()
        logger.debug("%s %s", SECRET, "other-secret-0099")
        second()
        second()  # ending twice is harmless
        logger.debug("%s %s", SECRET, "other-secret-0099")
    assert [r.getMessage() for r in records] == [
        "[REDACTED] [REDACTED]",
        f"{SECRET} [REDACTED]",
        f"{SECRET} other-secret-0099",
    ]


def test_an_exceptions_text_is_redacted() -> None:
    with _keep("httpx._exc") as records:
        done = watch_call(lambda: [SECRET])
        try:
            raise RuntimeError(f"refused {SECRET}")
        except RuntimeError:
            logging.getLogger("httpx._exc").debug("failed", exc_info=sys.exc_info())
        finally:
            done()
    (record,) = records
    assert record.exc_text is not None
    assert "RuntimeError: refused [REDACTED]" in record.exc_text
    assert SECRET not in record.exc_text
