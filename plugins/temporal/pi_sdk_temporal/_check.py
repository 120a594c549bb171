"""Check a workflow input on the client, before anything is started.

A bad value found inside the workflow would fail its task again and again (Temporal retries
workflow tasks); here it is a :class:`ValueError` naming the field and the valid values, and
nothing was started.
"""

from __future__ import annotations

from typing import Any, get_args

from pi_sdk import StreamOptions
from pi_sdk.agent import AgentThinkingLevel, QueueMode, ToolExecutionMode, ToolSteering

from ._wire import STREAM_OPTION_FIELDS, AgentRunInput, message_from_json

__all__ = ["check_input"]

_SECRET_OPTIONS = ("api_key", "headers")


def _choice(field: str, value: str, alias: Any) -> None:
    valid: tuple[str, ...] = get_args(alias)
    if value not in valid:
        raise ValueError(f"{field} must be one of {', '.join(valid)}; got {value!r}")


def check_input(input: AgentRunInput) -> None:  # noqa: A002 - the workflow's input
    """Raise :class:`ValueError` for what the workflow could not run.

    Raises:
        ValueError: an empty model name; an unknown thinking level, tool execution, tool
            steering or queue mode; a stream option that is not in
            :data:`~pi_sdk_temporal.STREAM_OPTION_FIELDS` (``api_key`` and ``headers`` are
            refused: they would be written into the workflow history) or has a bad value; a
            message that is not pi message JSON.
    """
    if not input.model:
        raise ValueError("model must name a model of the workers' registry")
    _choice("thinking_level", input.thinking_level, AgentThinkingLevel)
    _choice("tool_execution", input.tool_execution, ToolExecutionMode)
    _choice("tool_steering", input.tool_steering, ToolSteering)
    _choice("steering_mode", input.steering_mode, QueueMode)
    _choice("follow_up_mode", input.follow_up_mode, QueueMode)
    secret = [name for name in _SECRET_OPTIONS if name in input.options]
    if secret:
        raise ValueError(
            f"options {', '.join(secret)} cannot be sent: the workflow history would keep them;"
            " give the workers' AgentRegistry a get_api_key (keys) or set them on the model"
        )
    unknown = sorted(set(input.options) - set(STREAM_OPTION_FIELDS))
    if unknown:
        raise ValueError(
            f"unknown options {', '.join(unknown)}; valid: {', '.join(STREAM_OPTION_FIELDS)}"
        )
    try:
        StreamOptions(**input.options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"options: {exc}") from None
    for field, messages in (("prompt", input.prompt), ("messages", input.messages)):
        for index, data in enumerate(messages):
            try:
                message_from_json(data)
            except Exception as exc:  # noqa: BLE001 - pydantic's or the registry's reason
                raise ValueError(f"{field}[{index}] is not a pi message: {exc}") from None
