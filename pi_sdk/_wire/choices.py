"""Settings that take one of a few names: a wrong name is refused where it is set.

pi-mono types these settings as string unions (``toolExecution: "sequential" | "parallel"``),
which TypeScript checks before the program runs. Python checks nothing of a ``Literal`` at
run time, and the code reading such a setting tests one name and takes the other branch for
anything else, so a typo (``tool_execution="serial"``) would run silently as the default.
:func:`check_choice` refuses it, naming the setting and its valid values.

The agent's mode settings are defined here (re-exported by :mod:`pi_sdk._wire.agent_types`
and ``pi_sdk.agent``), so that an :class:`pi_sdk.Agent` checks them when it is built without
importing the run's machinery (first use, issue 32).
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, get_args

__all__ = ["QueueMode", "ToolExecutionMode", "ToolSteering", "check_choice"]

ToolExecutionMode: TypeAlias = Literal["sequential", "parallel"]
"""How the tool calls of one assistant message run; pi-mono's default is ``"parallel"``."""

ToolSteering: TypeAlias = Literal["wait", "skip"]
"""What a steering message does to the tool calls of a batch: ``"wait"`` (default,
pi-agent-core 0.73.1) lets every call run and injects the message after the batch; ``"skip"``
(pi-agent-core before 0.73) gives the calls not yet run the result "Skipped due to queued user
message."."""

QueueMode: TypeAlias = Literal["all", "one-at-a-time"]
"""How many queued steering/follow-up messages one poll takes: all, or the oldest one."""


def check_choice(setting: str, value: object, alias: Any, *, optional: bool = False) -> None:
    """Refuse a value that is none of the names of the ``Literal`` type ``alias``.

    Args:
        setting: The setting's Python name, for the message (``"tool_execution"``).
        value: The value given.
        alias: The setting's ``Literal[...]`` type; its arguments are the valid names.
        optional: ``None`` is valid too (the setting's default applies).

    Raises:
        ValueError: ``unknown <setting> <value>: valid values are '<a>', '<b>'`` (plus
            ``or None`` when ``optional``).
    """
    valid: tuple[str, ...] = get_args(alias)
    if value in valid or (optional and value is None):
        return
    names = ", ".join(repr(name) for name in valid)
    raise ValueError(
        f"unknown {setting} {value!r}: valid values are {names}{' or None' if optional else ''}"
    )
