"""What ``/model`` tells about the history it carries to another model.

The transcript is not rewritten when the chat switches models: before every call the target's
provider passes the history through :func:`pi_sdk.provider.transform_messages` (pi-mono
``transformMessages``). :func:`carry_over` runs that transform for the new model once, up front,
and says in one line what it changes, so the user sees what the next vendor will get: another
vendor's thinking sent as plain text, its server-tool blocks, citations and images sent as text
(``docs/server-tools.md``), signatures it could not check dropped, failed or aborted turns left
out, turns left empty left out (another source's redacted reasoning alone), results made up for
calls that never got one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_sdk import types
from pi_sdk._agent.messages import default_convert_to_llm
from pi_sdk._cli.common import plural
from pi_sdk._wire.agent_types import AgentMessage
from pi_sdk._wire.transform import is_same_source, transform_messages

__all__ = ["carry_over"]


def _signed(message: types.AssistantMessage) -> int:
    count = 0
    for block in message.content:
        if isinstance(block, types.ThinkingContent):
            count += bool(block.thinking_signature)
        elif isinstance(block, types.TextContent):
            count += bool(block.text_signature)
        elif isinstance(block, types.ToolCall | types.ImageContent):
            count += bool(block.thought_signature)
    return count


def _foreign_blocks(foreign: Sequence[types.AssistantMessage]) -> list[str]:
    """What the transform sends as text of the other sources' blocks, counted."""
    blocks = [block for message in foreign for block in message.content]
    server = sum(isinstance(b, types.ServerToolCall | types.ServerToolResult) for b in blocks)
    cited = sum(len(b.citations or ()) for b in blocks if isinstance(b, types.TextContent))
    images = sum(isinstance(b, types.ImageContent) for b in blocks)
    said = [
        f"{plural(server, 'server-tool block')} sent as text" if server else "",
        f"{plural(cited, 'citation')} sent as a list of sources" if cited else "",
        f"{plural(images, 'image')} the model made sent as text" if images else "",
    ]
    return [line for line in said if line]


def _count(messages: Sequence[types.Message], kind: type[object]) -> int:
    return sum(isinstance(message, kind) for message in messages)


def carry_over(messages: Sequence[AgentMessage], target: types.Model) -> str:
    """One line saying what the history becomes for ``target`` (the provider's transform).

    Returns:
        E.g. ``"history carried over to openai/gpt-5 (openai-responses): 4 messages; 1 thinking
        block from anthropic/claude-sonnet-4-5 sent as text, 1 signature dropped"``.
    """
    before = default_convert_to_llm(messages)
    after = transform_messages(before, target)
    where = f"{target.provider}/{target.id} ({target.api})"
    head = f"history carried over to {where}: {plural(len(after), 'message')}"
    foreign = [
        m for m in before if isinstance(m, types.AssistantMessage) and not is_same_source(m, target)
    ]
    changes: list[str] = []
    as_text = sum(
        isinstance(block, types.ThinkingContent)
        and not block.redacted
        and bool(block.thinking.strip())
        for message in foreign
        for block in message.content
    )
    if as_text > 0:
        sources = ", ".join(sorted({f"{m.provider}/{m.model}" for m in foreign}))
        changes.append(f"{plural(as_text, 'thinking block')} from {sources} sent as text")
    changes += _foreign_blocks(foreign)
    signatures = sum(_signed(m) for m in foreign)
    if signatures:
        changes.append(f"{plural(signatures, 'signature')} dropped")
    left_out = _count(before, types.AssistantMessage) - _count(after, types.AssistantMessage)
    failed = sum(
        isinstance(m, types.AssistantMessage) and m.stop_reason in ("error", "aborted")
        for m in before
    )
    if failed > 0:
        changes.append(f"{plural(failed, 'failed or aborted turn')} left out")
    if left_out > failed:  # nothing the target can take was left (another source's reasoning)
        changes.append(f"{plural(left_out - failed, 'empty turn')} left out")
    made_up = _count(after, types.ToolResultMessage) - _count(before, types.ToolResultMessage)
    if made_up > 0:
        changes.append(f"{plural(made_up, 'missing tool result')} added as errors")
    if not changes:
        return head + ("; nothing to change" if before else "")
    return f"{head}; {', '.join(changes)}"
