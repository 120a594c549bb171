"""The bash execution record: a transcript message of its own, shown to the model as user text.

A :class:`BashExecution` is what a person (or an app) ran in a shell *outside* the model's tool
calls, e.g. a ``!make test`` typed into a chat. The transcript keeps it as its own type
(``role: "bashExecution"``, pi-mono coding-agent's shape); :func:`bash_execution_to_messages`
is its ``convert_to_llm`` mapping: one user message with the command, its output and how it
ended, so the model can read it. ``exclude_from_context`` keeps a record in the transcript but
hides it from the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_sdk import Message, TextContent, UserMessage, now_ms

__all__ = ["BASH_EXECUTION_ROLE", "BashExecution", "bash_execution_to_messages", "render"]

BASH_EXECUTION_ROLE = "bashExecution"
"""The record's ``role`` (pi-mono coding-agent ``BashExecutionMessage``)."""


class BashExecution(BaseModel):
    """One shell command run outside the model's tool calls, with its result.

    JSON (camelCase, like every pi-sdk message)::

        {"role": "bashExecution", "command": "make test", "output": "...", "exitCode": 2,
         "cancelled": false, "truncated": false, "timestamp": 1767225600000}
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,  # the schema is built on first use, not when the plugin loads
    )

    role: Literal["bashExecution"] = BASH_EXECUTION_ROLE
    command: str
    """The command line as given to the shell."""
    output: str = ""
    """Combined stdout and stderr, decoded as UTF-8 (invalid bytes replaced), possibly cut."""
    exit_code: int | None = None
    """The process exit status; ``None`` when it did not finish (cancelled or timed out)."""
    cancelled: bool = False
    """The command was stopped (abort or timeout) before it finished."""
    truncated: bool = False
    """``output`` was cut to its limit; the full text is in ``full_output_path`` if set."""
    full_output_path: str | None = None
    """Where the complete output was saved, when it was truncated."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch, when the command started."""
    exclude_from_context: bool = False
    """Keep the record in the transcript but do not show it to the model."""


def render(record: BashExecution) -> str:
    """Return the text the model reads for ``record``.

    Shape: ``Ran `cmd``` then the output in a fenced block (or ``(no output)``), then a
    status line when the command did not simply succeed (exit code, cancelled, truncated).
    """
    parts = [f"Ran `{record.command}`"]
    output = record.output.rstrip("\n")
    parts.append(f"```\n{output}\n```" if output else "(no output)")
    if record.cancelled:
        parts.append("(command cancelled)")
    elif record.exit_code not in (0, None):
        parts.append(f"Command exited with code {record.exit_code}")
    if record.truncated:
        where = f" Full output: {record.full_output_path}" if record.full_output_path else ""
        parts.append(f"[Output truncated.{where}]")
    return "\n".join(parts)


def bash_execution_to_messages(record: BashExecution) -> list[Message]:
    """The record's ``convert_to_llm``: one user message, or nothing when excluded."""
    if record.exclude_from_context:
        return []
    return [UserMessage(content=[TextContent(text=render(record))], timestamp=record.timestamp)]
