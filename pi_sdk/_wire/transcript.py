"""The transcript form of a context: prompt and tools carried by system messages (pi-ai 1.6).

pi-ai 1.6 moved the system prompt and the tools into the transcript: a leading
:class:`~pi_sdk.types.SystemMessage` declares them, later ones change them (``content`` adds
instructions, ``sections`` patch named sections, ``tools_added`` / ``tools_removed`` change
the tool set). ``Context.system_prompt`` / ``Context.tools`` remain as shorthand, folded into a
leading system message by :func:`normalize_context`. The replay helpers give the current
prompt and tools at the end of a transcript, and :func:`collapse_system_messages` rebuilds one
leading system message for a model that does not accept system messages mid-conversation.

Source: pi-ai 1.6 ``utils/transcript.ts`` and ``utils/text.ts``; names snake_case.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Literal, TypeAlias

from pi_sdk.types import Context, Message, SystemMessage, Tool, ToolReference

__all__ = [
    "ToolSupport",
    "collapse_system_messages",
    "current_system_message",
    "current_system_prompt",
    "current_tools",
    "declared_tools",
    "declarations_equal",
    "initial_system_message",
    "leading_system_message",
    "normalize_context",
    "resolve_transcript",
    "resolve_transcript_tools",
    "tool_state_changes",
]

ToolSupport: TypeAlias = Literal["none", "additions", "changes"]
"""How a wire API declares tools mid-conversation (pi-ai 1.6 ``resolveTranscriptTools``):
``"none"`` (the request's tool list is the current set), ``"additions"`` (later additions in
place, a removal or redefinition folds into the request list), ``"changes"`` (every
declaration in place, the request list stays empty)."""


def _messages(source: Context | Sequence[Message]) -> Sequence[Message]:
    return normalize_context(source).messages if isinstance(source, Context) else source


def initial_system_message(
    system_prompt: str | None, tools: Sequence[Tool] | None
) -> SystemMessage | None:
    """The leading system message for a prompt and tool set; ``None`` when both are empty.

    Its ``timestamp`` is ``0`` (pi-ai 1.6 ``createInitialSystemMessage``); ``content`` is the
    prompt (``""`` without one) and ``tools_added`` the tools, left out when there are none.
    """
    if not system_prompt and not tools:
        return None
    if tools:
        return SystemMessage(content=system_prompt or "", tools_added=list(tools), timestamp=0)
    return SystemMessage(content=system_prompt or "", timestamp=0)


def normalize_context(context: Context) -> Context:
    """Fold ``context.system_prompt`` and ``context.tools`` into a leading system message.

    Returns:
        A context in transcript form: ``system_prompt`` and ``tools`` are ``None`` and
        ``messages`` starts with the folded :class:`SystemMessage` (when there was a prompt
        or a tool), followed by the original messages. A context without the shorthand is
        returned as it is (the same object). The input is never changed; the messages are
        shared, not copied. Extra fields of the context are kept.

    Source: pi-ai 1.6 ``normalizeContext`` (a leading system message already in ``messages``
    stays where it is, after the folded one).
    """
    if context.system_prompt is None and context.tools is None:
        return context
    head = initial_system_message(context.system_prompt, context.tools)
    messages = [head, *context.messages] if head is not None else list(context.messages)
    return context.model_copy(update={"system_prompt": None, "tools": None, "messages": messages})


def leading_system_message(messages: Sequence[Message]) -> SystemMessage | None:
    """The system message the transcript starts with, if any (``getInitialSystemMessage``)."""
    first = messages[0] if messages else None
    return first if isinstance(first, SystemMessage) else None


def _system_messages(messages: Iterable[Message]) -> Iterable[SystemMessage]:
    return (m for m in messages if isinstance(m, SystemMessage))


def current_tools(source: Context | Sequence[Message]) -> list[Tool]:
    """The tools available after replaying every system message in order.

    A removal drops the tool of that name; an addition sets it (a same-name tool is replaced,
    keeping its first position). ``source`` is a context (its shorthand counts) or a message
    list. Source: pi-ai 1.6 ``getCurrentTools``.
    """
    tools: dict[str, Tool] = {}
    for message in _system_messages(_messages(source)):
        for ref in message.tools_removed or ():
            tools.pop(ref.name, None)
        for tool in message.tools_added or ():
            tools[tool.name] = tool
    return list(tools.values())


def current_system_message(source: Context | Sequence[Message]) -> SystemMessage | None:
    """One system message holding the current prompt and tools; ``None`` without any.

    Every system message's text is appended (blank-line separated), sections are patched by
    name (``None`` removes one), tools come from :func:`current_tools`; the timestamp is the
    first system message's. Source: pi-ai 1.6 ``getCurrentSystemMessage``.
    """
    messages = _messages(source)
    content: list[str] = []
    sections: dict[str, str] = {}
    timestamp: int | None = None
    for message in _system_messages(messages):
        if timestamp is None:
            timestamp = message.timestamp
        if text := message.text:
            content.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(messages)
    if timestamp is None and not tools:
        return None
    return SystemMessage(
        content="\n\n".join(content),
        sections=dict(sections) if sections else None,
        tools_added=tools or None,
        timestamp=timestamp or 0,
    )


def current_system_prompt(source: Context | Sequence[Message]) -> str:
    """The current system prompt text after replaying every system message (``""`` if none).

    Source: pi-ai 1.6 ``getCurrentSystemPrompt``.
    """
    message = current_system_message(source)
    return message.prompt_text if message is not None else ""


def collapse_system_messages(context: Context) -> Context:
    """The context in transcript form with every system message replayed into one leading one.

    For a model that takes no system message mid-conversation: the current prompt and tools
    lead (:func:`current_system_message`), the other system messages are dropped. Source:
    pi-ai 1.6 ``collapseSystemMessages``.
    """
    context = normalize_context(context)
    if not any(isinstance(m, SystemMessage) for m in context.messages[1:]):
        return context  # at most a leading one: already collapsed
    head = current_system_message(context.messages)
    rest = [m for m in context.messages if not isinstance(m, SystemMessage)]
    return context.model_copy(update={"messages": [head, *rest] if head is not None else rest})


def resolve_transcript(context: Context, in_place: bool) -> Context:
    """The context in transcript form, later system messages kept in place when ``in_place``.

    ``in_place`` is the model's ``supportsMidConvoSystemMessages``; without it the transcript
    is collapsed (:func:`collapse_system_messages`). Source: pi-ai 1.6 ``resolveTranscript``.
    """
    return normalize_context(context) if in_place else collapse_system_messages(context)


def _declaration(tool: Tool) -> str:
    data = tool.model_dump(
        mode="json", include={"name", "description", "parameters", "constrained_sampling"}
    )
    return json.dumps(data, ensure_ascii=False)


def declarations_equal(left: Tool, right: Tool) -> bool:
    """Whether two tools declare the same interface to the model.

    Compared: name, description, parameters and ``constrainedSampling``, key order included
    (pi-ai 1.6 ``declarationsEqual``).
    """
    return _declaration(left) == _declaration(right)


def tool_state_changes(
    previous: Sequence[Tool], current: Sequence[Tool]
) -> tuple[list[Tool], list[ToolReference]]:
    """``(tools_added, tools_removed)`` that turn the tool set ``previous`` into ``current``.

    A changed definition is a removal followed by an addition. Source: pi-ai 1.6
    ``getToolStateChanges``.
    """
    before = {t.name: t for t in previous}
    after = {t.name: t for t in current}
    added = [
        t for t in current if (old := before.get(t.name)) is None or not declarations_equal(old, t)
    ]
    removed = [
        ToolReference(name=t.name)
        for t in previous
        if (new := after.get(t.name)) is None or not declarations_equal(t, new)
    ]
    return added, removed


def declared_tools(messages: Sequence[Message]) -> list[Tool]:
    """Every tool definition the transcript's system messages declare.

    The last definition of a name wins, in first-declaration order (pi-ai 1.6
    ``getDeclaredTools``).
    """
    definitions: dict[str, Tool] = {}
    for message in _system_messages(messages):
        for tool in message.tools_added or ():
            definitions[tool.name] = tool
    return list(definitions.values())


def _last_non_additive_change(messages: Sequence[SystemMessage]) -> int:
    declared: set[str] = set()
    last = -1
    for index, message in enumerate(messages):
        if message.tools_removed:
            last = index
        for tool in message.tools_added or ():
            if tool.name in declared:
                last = index
            declared.add(tool.name)
    return last


def resolve_transcript_tools(
    messages: Sequence[Message], support: ToolSupport
) -> tuple[list[Tool], int]:
    """``(request_tools, folded)``: the request-level tool list and what it stands for.

    ``folded`` is how many of the leading system messages the list stands for (their
    declarations are not sent in place).

    ``"none"``: the current tools, every system message folded. ``"changes"``: no request
    tools, none folded. ``"additions"``: the tool state after the last removal or
    redeclaration (at least the leading message's), later additions in place. Source: pi-ai
    1.6 ``resolveTranscriptTools``.
    """
    system = list(_system_messages(messages))
    if support == "none":
        return current_tools(system), len(system)
    if support == "changes":
        return [], 0
    lead = 1 if leading_system_message(messages) is not None else 0
    folded = max(lead, _last_non_additive_change(system) + 1)
    return current_tools(system[:folded]), folded
