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

from typing import TYPE_CHECKING

from pi_sdk import hookimpl
from pi_sdk.plugins import DEFAULT_PATTERNS, DEFAULT_SECRET_KEYS, REDACTED, EnvSetting, Redactor

from .log import DEFAULT_SKIPPED_EVENTS, AuditLog

if TYPE_CHECKING:
    from pi_sdk import AbortSignal, AfterToolCallContext, AgentEvent

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

_log: EnvSetting[AuditLog] = EnvSetting(AUDIT_LOG_ENV, AuditLog, AuditLog.close)


def configure(log: AuditLog | None) -> None:
    """Set the log the plugin writes to (``None``: write nothing); overrides the env var."""
    _log.configure(log)


def reset() -> None:
    """Forget :func:`configure` and close a log opened from the env var; re-read it next time."""
    _log.reset()


def active_log() -> AuditLog | None:
    """Return the log the plugin writes to now, opening ``PI_SDK_AUDIT_LOG`` on first use.

    Raises:
        OSError: the file named by the environment variable cannot be opened (tried again on
            the next call).
    """
    return _log.get()


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
