"""pi-sdk-bash-records: shell commands run outside the model's tool calls, in the transcript.

Installed, this plugin registers the :class:`BashExecution` message type (``role:
"bashExecution"``) through the ``register_message_types`` hook, with
:func:`bash_execution_to_messages` as its ``convert_to_llm``: the Agent keeps the record as its
own type (and session JSON reads it back as one), the model sees a user message describing the
command and its output.

Example:
    ```python
    from pi_sdk_bash_records import run_bash

    record = await run_bash("make test", timeout=120)
    agent.state.messages = [*agent.state.messages, record]   # the model sees it next turn
    await agent.prompt("Why did the tests fail?")
    ```
"""

from __future__ import annotations

from collections.abc import Callable

from pi_sdk import hookimpl

from .record import BASH_EXECUTION_ROLE, BashExecution, bash_execution_to_messages, render
from .run import DEFAULT_MAX_OUTPUT_CHARS, run_bash

__all__ = [
    "BASH_EXECUTION_ROLE",
    "DEFAULT_MAX_OUTPUT_CHARS",
    "BashExecution",
    "bash_execution_to_messages",
    "register_message_types",
    "render",
    "run_bash",
]


@hookimpl
def register_message_types(register: Callable[..., None]) -> None:
    """Register :class:`BashExecution` with its ``convert_to_llm`` mapping."""
    register(BashExecution, bash_execution_to_messages)
