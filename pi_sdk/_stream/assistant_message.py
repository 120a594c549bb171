"""The call's assistant message: the empty one a provider starts from, the typed answer at the end.

:func:`new_assistant_message` is pi-spec §4.0 step 1 (stamped with the endpoint its signatures
belong to); :func:`settle_output` parses a finished message against ``StreamOptions.output``
once, never per event (docs/structured-output.md).
"""

from __future__ import annotations

import json

from pi_sdk._wire.output import OUTPUT_TOOL_NAME, Output, parse_output
from pi_sdk.types import AssistantMessage, Model, TextContent, ToolCall

__all__ = ["new_assistant_message", "settle_output"]


def new_assistant_message(model: Model, *, base_url: str | None = None) -> AssistantMessage:
    """Return the empty output message a provider starts from (pi-spec §4.0 step 1).

    The message is stamped with ``signature_origin(model, base_url)`` so its signatures are only
    replayed to the same endpoint; pass ``base_url`` when the request goes somewhere other than
    ``model.base_url`` (e.g. a custom client).
    """
    from pi_sdk._wire.transform import signature_origin

    return AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        signature_origin=signature_origin(model, base_url),
    )


def settle_output(message: AssistantMessage, spec: Output) -> None:
    """Turn a forced ``final_answer`` call into the answer's text, then parse the message.

    Called once on a finished call's message (never per event): each forced tool call becomes
    a text block holding its arguments' JSON, and ``stop_reason`` ``"toolUse"`` becomes
    ``"stop"`` when no other tool call is left, so the agent and the caller see an answer,
    not a tool to run (docs/structured-output.md).
    """
    content = message.content
    for index, block in enumerate(content):
        if isinstance(block, ToolCall) and block.name == OUTPUT_TOOL_NAME:
            content[index] = TextContent(text=json.dumps(block.arguments, ensure_ascii=False))
    if message.stop_reason == "toolUse" and not any(isinstance(b, ToolCall) for b in content):
        message.stop_reason = "stop"
    message.set_output(parse_output(message, spec))
