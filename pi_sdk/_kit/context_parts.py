"""How a provider reads its context: the prompt, the tools and the messages it sends.

The one path from a :class:`~pi_sdk.Context` to what a wire API sends (pi-ai 1.6 transcript
contexts).

A context comes in either form: the shorthand (``system_prompt`` / ``tools``) or the transcript
(:class:`~pi_sdk.SystemMessage` entries in ``messages``), or both. :meth:`ContextParts.read`
normalizes it (:func:`pi_sdk.normalize_context`), keeps later system messages in place when
the model accepts them mid-conversation (``model.compat["supportsMidConvoSystemMessages"]``,
pi-ai 1.6) and otherwise replays them into the leading prompt
(:func:`pi_sdk.collapse_system_messages`), and splits the request-level tool list from the
tools declared in place (:func:`pi_sdk._wire.transcript.resolve_transcript_tools`). Every
first-party provider reads its context here, so the rules live in one place.

Source: pi-ai 1.6 ``resolveTranscript`` / ``resolveTranscriptTools`` as each ``api/*.ts``
calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_sdk._wire.transcript import (
    ToolSupport,
    leading_system_message,
    resolve_transcript,
    resolve_transcript_tools,
)
from pi_sdk.types import Context, Message, Model, SystemMessage, Tool

__all__ = ["ContextParts", "mid_convo_system_messages"]

MID_CONVO_SYSTEM = "supportsMidConvoSystemMessages"
"""The compat flag of a model that takes system messages mid-conversation (pi-ai 1.6)."""


def mid_convo_system_messages(model: Model) -> bool:
    """Whether ``model`` takes system messages mid-conversation (its compat flag, pi-ai 1.6)."""
    return bool((model.compat or {}).get(MID_CONVO_SYSTEM))


@dataclass(frozen=True, slots=True)
class ContextParts:
    """What a provider sends, read from a context: ``ContextParts.read(context, model)``.

    The one way a provider reads the prompt, tools and messages of a context (both forms).
    """

    system_prompt: str
    """The leading prompt: the leading system message's text and sections (``""`` without
    one). Replayed from every system message unless later ones are sent in place."""
    tools: list[Tool]
    """The request-level tool list (the current tools, unless declared in place)."""
    messages: list[Message]
    """The conversation after the leading system message. It holds later
    :class:`~pi_sdk.SystemMessage` entries only when they are sent in place; send each with
    :attr:`SystemMessage.update_text` and :meth:`tools_added_in_place`."""
    leading: SystemMessage | None
    """The leading system message (after replay, when collapsed), or ``None``."""
    folded: frozenset[int]
    """``id()`` of the system messages whose tool declarations the request list stands for."""

    @classmethod
    def read(
        cls,
        context: Context,
        model: Model,
        *,
        in_place: bool | None = None,
        tool_support: ToolSupport = "none",
        extra_tools: Sequence[Tool] = (),
    ) -> ContextParts:
        """Read ``context`` the way ``model``'s wire API sends it (pi-ai 1.6).

        Args:
            context: Either form (shorthand, transcript, or both); not changed.
            model: The target; ``model.compat["supportsMidConvoSystemMessages"]`` decides
                ``in_place`` unless it is given.
            in_place: Send later system messages in place (``True``) or replay them into the
                leading prompt (``False``, what an API without mid-conversation system messages
                must do: Gemini, Bedrock).
            tool_support: How the API declares tools mid-conversation: ``"none"`` (the request
                list is the current set), ``"additions"`` (later additions in place, Kimi's tool
                messages), ``"changes"`` (every declaration in place, OpenAI Responses
                ``additional_tools``). Ignored (``"none"``) when not ``in_place``.
            extra_tools: Tools the provider adds to the request list (the forced answer tool).

        Returns:
            A :class:`ContextParts`.
        """
        if in_place is None:
            in_place = mid_convo_system_messages(model)
        transcript = resolve_transcript(context, in_place)
        messages = transcript.messages
        leading = leading_system_message(messages)
        rest = list(messages[1:]) if leading is not None else list(messages)
        tools, folded = resolve_transcript_tools(messages, tool_support if in_place else "none")
        system = [m for m in messages if isinstance(m, SystemMessage)]
        return cls(
            system_prompt=leading.prompt_text if leading is not None else "",
            tools=[*tools, *extra_tools],
            messages=rest,
            leading=leading,
            folded=frozenset(id(m) for m in system[:folded]),
        )

    def tools_added_in_place(self, message: SystemMessage) -> list[Tool]:
        """The tools ``message`` declares in place: ``[]`` when the request list covers it."""
        return [] if id(message) in self.folded else list(message.tools_added or ())
