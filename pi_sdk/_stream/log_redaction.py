"""Secrets kept out of what the vendor SDKs and the HTTP library log (issue 15.3).

With DEBUG logging on, the vendor SDKs log request options, header values included (the
anthropic SDK prints ``StreamOptions(headers=...)`` values it was given), and the HTTP library
logs what it sends. pi-sdk installs a log-record factory (once, on the first call, or the first
failed agent run) that, for records of the loggers under :data:`VENDOR_LOGGERS`, formats the
message and replaces every secret in it, and in the exception text, with ``[REDACTED]``:

* the secrets of every call that is running (its API key, from the options or the
  ``get_api_key`` hook / environment, and the values of the headers whose names say they carry
  a credential: :func:`pi_sdk._wire.redact.secret_header_values`), registered by the core for the
  call's lifetime (:func:`watch_call`) and read only when such a record is made;
* the values of secret-looking environment variables and the credential patterns of
  :data:`pi_sdk._wire.redact.DEFAULT_PATTERNS` (``sk-...``, ``Bearer ...``, ``x-api-key: ...``).

A factory, not a :class:`logging.Filter`: a filter on ``anthropic`` does not see the records of
``anthropic._base_client``, and loggers created later would need one each. The cost is paid
only for records that are made, i.e. when the user turned those loggers' level down.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["VENDOR_LOGGERS", "install", "watch_call"]

VENDOR_LOGGERS = frozenset(
    {
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
    }
)
"""Top-level logger names whose records are redacted (children included)."""

SecretSource = Callable[[], Iterable[str | None]]


class _Call:
    __slots__ = ("source", "values")

    def __init__(self, source: SecretSource) -> None:
        self.source = source
        self.values: list[str] | None = None

    def secrets(self) -> list[str]:
        if self.values is None:
            try:
                self.values = [v for v in self.source() if v]
            except Exception:  # noqa: BLE001 - a failing hook must not break logging
                self.values = []
        return self.values


_calls: dict[int, _Call] = {}
_numbers = itertools.count()
_lock = threading.Lock()
_installed = False


def watch_call(secrets: SecretSource) -> Callable[[], None]:
    """Redact ``secrets()`` from vendor log records until the returned function is called.

    ``secrets`` is called at most once, when the first vendor record is made during the call.
    """
    install()
    number = next(_numbers)
    _calls[number] = _Call(secrets)
    return lambda: _calls.pop(number, None) and None


def install() -> None:
    """Install the log-record factory (once; :func:`watch_call` does it for every call)."""
    global _installed
    if _installed:
        return
    with _lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            if record.name.split(".", 1)[0] in VENDOR_LOGGERS:
                _redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _installed = True


def _redact_record(record: logging.LogRecord) -> None:
    from pi_sdk._wire.redact import Redactor

    values = [value for call in list(_calls.values()) for value in call.secrets()]
    redactor = Redactor(values=values)
    try:
        text = record.getMessage()
    except Exception:  # noqa: BLE001 - a bad format string: keep what there is, redacted
        text = f"{record.msg} {record.args!r}"
    record.msg = redactor.redact_text(text)
    record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = redactor.redact_text(logging.Formatter().formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redactor.redact_text(record.stack_info)
