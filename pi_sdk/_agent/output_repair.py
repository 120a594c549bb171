"""The agent's opt-in repair turn for a typed answer that did not validate.

``Agent(output=..., output_repairs=n)``: when the run would end on an assistant message whose
``output`` did not validate (``output.error``), the agent sends one more user message naming the
problem, up to ``n`` times per run, and the model answers again (pydantic-ai's output retries,
openai-agents' ``ModelBehaviorError`` are the references; both re-ask the model). The repair
message stays in the transcript, so the exchange is visible and replayable.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_sdk._wire.agent_types import AgentMessage
from pi_sdk.types import AssistantMessage, TextContent, UserMessage

__all__ = ["REPAIR_PREFIX", "repair_prompt"]

REPAIR_PREFIX = "Your answer did not match the requested output format:"


def repair_prompt(messages: Sequence[AgentMessage]) -> UserMessage | None:
    """The repair user message for the transcript's last message, or ``None``.

    ``None`` unless the last message is an assistant message that ended normally (``stop`` or
    ``length``, not ``error`` / ``aborted`` / ``toolUse``) and whose typed answer failed to
    validate; the message quotes the validator's reason.
    """
    if not messages:
        return None
    last = messages[-1]
    if not isinstance(last, AssistantMessage) or last.stop_reason not in ("stop", "length"):
        return None
    output = last.output
    if output is None or output.ok:
        return None
    text = (
        f"{REPAIR_PREFIX} {output.error}. Reply again with only the corrected answer, as JSON"
        " that follows the schema."
    )
    return UserMessage(content=[TextContent(text=text)])
