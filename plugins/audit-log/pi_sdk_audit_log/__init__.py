"""pi-sdk-audit-log: every tool call and result as JSON lines, secrets redacted.

Installed, this plugin implements ``after_tool_call`` (``trylast``, so it records each result
as the model will see it) for every Agent in the process, writing to the *active log*:

* the :class:`AuditLog` passed to :func:`configure` (``configure(None)`` switches it off), else
* a log appending to the file named by ``PI_SDK_AUDIT_LOG`` (opened on the first tool call),
* else nothing is written.

For the full event stream (including calls that were blocked or never found), subscribe the
log to an Agent: ``agent.subscribe(pi_sdk_audit_log.listener)`` writes to the active log, or
``agent.subscribe(log.listener)`` to a given one.
"""

from __future__ import annotations

import os
import threading

from pi_sdk import AbortSignal, AfterToolCallContext, AgentEvent, hookimpl
from pi_sdk.plugins import DEFAULT_PATTERNS, DEFAULT_SECRET_KEYS, REDACTED, Redactor

from .log import DEFAULT_SKIPPED_EVENTS, AuditLog

__all__ = [
    "AUDIT_LOG_ENV",
    "DEFAULT_PATTERNS",
    "DEFAULT_SECRET_KEYS",
    "DEFAULT_SKIPPED_EVENTS",
    "REDACTED",
    "AuditLog",
    "Redactor",
    "active_log",
    "after_tool_call",
    "configure",
    "listener",
    "reset",
]

AUDIT_LOG_ENV = "PI_SDK_AUDIT_LOG"
"""Environment variable naming the JSON-lines file used when :func:`configure` was not called."""

_lock = threading.Lock()
_configured = False
_log: AuditLog | None = None
_from_env = False


def configure(log: AuditLog | None) -> None:
    """Set the log the plugin writes to (``None``: write nothing); overrides the env var."""
    global _configured, _log, _from_env
    with _lock:
        _configured, _log, _from_env = True, log, False


def reset() -> None:
    """Forget :func:`configure` and close a log opened from the env var; re-read it next time."""
    global _configured, _log, _from_env
    with _lock:
        if _log is not None and _from_env:
            _log.close()
        _configured, _log, _from_env = False, None, False


def active_log() -> AuditLog | None:
    """Return the log the plugin writes to now, opening ``PI_SDK_AUDIT_LOG`` on first use.

    Raises:
        OSError: the file named by the environment variable cannot be opened.
    """
    global _configured, _log, _from_env
    with _lock:
        if not _configured:
            path = os.environ.get(AUDIT_LOG_ENV)
            _log, _from_env = (AuditLog(path), True) if path else (None, False)
            _configured = True
        return _log


@hookimpl(trylast=True)
async def after_tool_call(context: AfterToolCallContext, signal: AbortSignal | None) -> None:
    """Record one executed tool call in the active log (the plugin's hook)."""
    log = active_log()
    if log is not None:
        await log.after_tool_call(context, signal)


async def listener(event: AgentEvent, signal: AbortSignal | None = None) -> None:
    """An Agent listener writing to the active log (``agent.subscribe(listener)``)."""
    log = active_log()
    if log is not None:
        await log.listener(event, signal)
