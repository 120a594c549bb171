"""The audit log: one JSON object per line, secrets redacted, safe to share between tasks.

Two record kinds (keys in pi-mono's camelCase, like the rest of pi-sdk's JSON):

* ``{"kind": "toolCall", ...}`` from :meth:`AuditLog.after_tool_call`: one per tool call that
  ran, with its arguments and its final result (after every other plugin's changes: the hook
  runs ``trylast``)::

      {"kind": "toolCall", "timestamp": 1767225600000, "toolCallId": "call_1",
       "toolName": "bash", "arguments": {"command": "ls"}, "isError": false,
       "result": {"content": [{"type": "text", "text": "a.py"}], "details": {}},
       "model": {"api": "anthropic-messages", "provider": "anthropic", "id": "..."}}

* ``{"kind": "event", "timestamp": ..., "event": {...}}`` from :meth:`AuditLog.listener`,
  subscribed to an Agent: the agent events in pi-mono's JSON shape
  (:func:`pi_sdk.agent_event_to_dict`), ``message_update`` left out by default. This also
  records the calls that never ran (blocked, unknown tool, invalid arguments), whose
  ``tool_execution_end`` carries the error result.

Every record passes through a :class:`pi_sdk.plugins.Redactor` before it is written.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pi_sdk import now_ms
from pi_sdk.plugins import Redactor

if TYPE_CHECKING:
    from pi_sdk import AbortSignal, AfterToolCallContext, AgentEvent

__all__ = ["DEFAULT_SKIPPED_EVENTS", "AuditLog"]

DEFAULT_SKIPPED_EVENTS = frozenset({"message_update"})
"""Agent event types the listener leaves out unless asked (one per streamed delta)."""


class AuditLog:
    """Writes audit records as JSON lines to a file or text stream.

    Example:
        ```python
        log = AuditLog("audit.jsonl")
        agent = Agent(..., after_tool_call=log.after_tool_call)  # or install the plugin
        agent.subscribe(log.listener)
        ```
    """

    def __init__(
        self,
        sink: str | Path | TextIO,
        *,
        redactor: Redactor | None = None,
        skip_events: Collection[str] = DEFAULT_SKIPPED_EVENTS,
    ) -> None:
        """Open the log.

        Args:
            sink: A path (opened for appending, UTF-8, parent folders created) or an open text
                stream (not closed by :meth:`close`).
            redactor: The redaction rules; default ``Redactor()`` (every default rule).
            skip_events: Agent event types :meth:`listener` does not write.

        Raises:
            OSError: the file cannot be opened.
        """
        if isinstance(sink, (str, Path)):
            path = Path(sink)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._stream: TextIO = path.open("a", encoding="utf-8")
            self.path: Path | None = path
            """The file written, or ``None`` for a stream."""
        else:
            self._stream = sink
            self.path = None
        self.redactor = redactor if redactor is not None else Redactor()
        self.skip_events = frozenset(skip_events)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"AuditLog({str(self.path) if self.path else self._stream!r})"

    def write(self, record: dict[str, Any]) -> None:
        """Redact ``record``, write it as one JSON line and flush.

        Values JSON cannot encode are written as their ``repr`` (then redacted like any text).
        """
        line = json.dumps(
            self.redactor.redact(_plain(record)), ensure_ascii=False, separators=(",", ":")
        )
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()

    async def after_tool_call(
        self, context: AfterToolCallContext, signal: AbortSignal | None = None
    ) -> None:
        """Record one executed tool call and its result; never changes the result.

        Usable as the plugin hook (the plugin wires it) or as an Agent ``after_tool_call``.
        """
        message = context.assistant_message
        result = context.result
        self.write(
            {
                "kind": "toolCall",
                "timestamp": now_ms(),
                "toolCallId": context.tool_call.id,
                "toolName": context.tool_call.name,
                "arguments": _plain(context.args),
                "isError": context.is_error,
                "result": {
                    "content": [block.model_dump(mode="json") for block in result.content],
                    "details": _plain(result.details),
                },
                "model": {"api": message.api, "provider": message.provider, "id": message.model},
            }
        )

    async def listener(self, event: AgentEvent, signal: AbortSignal | None = None) -> None:
        """An Agent listener: record ``event`` unless its type is in :attr:`skip_events`."""
        if event.type in self.skip_events:
            return
        record = _event_to_dict()(event, include_partial=False)
        self.write({"kind": "event", "timestamp": now_ms(), "event": record})

    def close(self) -> None:
        """Close the file (a stream passed in is only flushed)."""
        with self._lock:
            if self.path is not None:
                self._stream.close()
            else:
                self._stream.flush()


def _plain(value: Any) -> Any:
    """A JSON-ready copy: pydantic models dumped, anything unknown as its ``repr``."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value, by_alias=True, fallback=repr)


_to_dict: list[Callable[..., dict[str, Any]]] = []


def _event_to_dict() -> Callable[..., dict[str, Any]]:
    """``pi_sdk.agent_event_to_dict``, imported by the first event, then kept.

    The agent event types load with the first run, not when the plugin is discovered.
    """
    if not _to_dict:
        from pi_sdk import agent_event_to_dict

        _to_dict.append(agent_event_to_dict)
    return _to_dict[0]
