"""The vendor log redaction's other paths (``pi_sdk/_stream/log_redaction.py``): a record whose
format string does not fit its arguments is kept as text and redacted, a stack trace is
redacted, a secrets source that raises leaves the default rules in force, and the record
factory is installed once however often it is asked. The secret is a value no default rule
knows, so only the call's own secrets can catch it.
"""

from __future__ import annotations

import logging

import pytest

from pi_sdk._stream import log_redaction
from pi_sdk._stream.log_redaction import install, watch_call

SECRET = "custom-secret-0042"
LOGGER = logging.getLogger("anthropic._test_redaction")


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept():  # noqa: ANN201
    handler = _Keep()
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.DEBUG)
    yield handler.records
    LOGGER.removeHandler(handler)


def test_a_record_whose_arguments_do_not_fit_is_kept_as_text_redacted(
    kept: list[logging.LogRecord],
):
    done = watch_call(lambda: [SECRET, None, ""])
    try:
        LOGGER.warning("sent %d with key", SECRET)
    finally:
        done()
    (record,) = kept
    assert record.getMessage() == "sent %d with key ('[REDACTED]',)"
    assert record.args is None


def test_a_stack_trace_is_redacted(kept: list[logging.LogRecord]):
    done = watch_call(lambda: [SECRET])
    try:
        LOGGER.warning("where", stack_info=True)  # custom-secret-0042 shows in the stack
    finally:
        done()
    (record,) = kept
    assert record.stack_info is not None and record.stack_info.startswith("Stack (most recent")
    assert "stack_info=True)  # [REDACTED] shows in the stack" in record.stack_info
    assert SECRET not in record.stack_info


def test_a_secrets_source_that_raises_leaves_the_default_rules(kept: list[logging.LogRecord]):
    asked: list[int] = []

    def broken() -> list[str]:
        asked.append(1)
        raise RuntimeError("the vault is down")

    done = watch_call(broken)
    try:
        LOGGER.warning("key %s and %s", "sk-ant-api03-" + "Z" * 40, SECRET)
        LOGGER.warning("again")  # the source is asked once per call
    finally:
        done()
    assert kept[0].getMessage() == f"key [REDACTED] and {SECRET}"
    assert kept[1].getMessage() == "again"
    assert len(asked) == 1


def test_the_record_factory_is_installed_once():
    install()
    factory = logging.getLogRecordFactory()
    assert log_redaction._installed  # pyright: ignore[reportPrivateUsage]
    install()
    watch_call(lambda: [])()
    assert logging.getLogRecordFactory() is factory


def test_an_install_that_loses_the_race_for_the_lock_installs_nothing(monkeypatch):
    """Two threads' first calls: the one that waited for the lock finds the factory installed
    by the other and leaves it (one redacting wrapper, not two)."""
    install()
    factory = logging.getLogRecordFactory()

    class RacedLock:
        def __enter__(self) -> None:  # the other thread installed while this one waited
            monkeypatch.setattr(log_redaction, "_installed", True)

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(log_redaction, "_installed", False)
    monkeypatch.setattr(log_redaction, "_lock", RacedLock())
    install()
    assert logging.getLogRecordFactory() is factory
