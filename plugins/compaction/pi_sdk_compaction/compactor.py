"""The compactor: before a model call over budget, older turns become a summary.

It is the agent's ``transform_context`` (pi-mono ``transformContext``): the loop hands it the
transcript before every model call, and it returns what the model sees. When the estimate of
that request (:func:`pi_sdk.agent.estimate_context_tokens`, anchored on the last reported usage)
passes ``threshold`` of the model's context window, the older messages are summarized by the
summary model and replaced by one :class:`~pi_sdk_compaction.CompactionSummary`; the newest
messages worth ``keep_recent_tokens`` stay verbatim, cut where no tool result loses its call
(:func:`~pi_sdk_compaction.cut.choose_cut`). Later calls reuse the summary, and the next
compaction updates it with the turns that have since aged (pi-coding-agent's update prompt).

System messages (pi-ai 1.6 prompt updates and tool announcements) are never summarized away: those
of the replaced range are carried verbatim (:func:`carry_system_messages`), so the prompt and the
tools replayed from the compacted transcript are the ones replayed from the whole transcript.

A reply that failed with a context overflow (:func:`pi_sdk.is_context_overflow`) forces a
compaction on the next call whatever the estimate said, keeping less, so ``agent.continue_()``
after such an error retries on a compacted context (pi-coding-agent compacts and retries once).

The transcript itself is not changed during a run (``transform_context`` results are per call);
:meth:`Compactor.apply` writes the compacted transcript into the Agent between runs, so a saved
session holds the summary (its message type is registered by this plugin and loads back).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pi_sdk import (
    AbortSignal,
    AssistantMessage,
    Context,
    Message,
    Model,
    StreamOptions,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    default_convert_to_llm,
    get_message_types,
    register_message_type,
)

from .cut import choose_cut
from .prompt import SYSTEM_PROMPT, serialize_conversation, summary_request
from .summary import COMPACTION_SUMMARY_ROLE, CompactionSummary, summary_to_messages

if TYPE_CHECKING:
    import logging

    from pi_sdk import Agent, AgentMessage
    from pi_sdk.agent import ConvertToLlm, TransformContext

__all__ = ["CompactionError", "CompactionRecord", "Compactor", "carry_system_messages"]

LOGGER_NAME = "pi_sdk_compaction"
"""The :mod:`logging` logger the compactor reports to (``warning``: nothing to compact;
``info``: a compaction done)."""


def _logger() -> logging.Logger:
    import logging  # at the first report: plugin discovery imports this module, not logging

    return logging.getLogger(LOGGER_NAME)


T = TypeVar("T")
SummaryStreamFn = Callable[[Model, Context, StreamOptions], Any]
"""``stream_fn(model, context, options)`` returning a stream with ``await .result()``."""


def carry_system_messages(
    messages: Sequence[AgentMessage], covered: int, summary: CompactionSummary
) -> tuple[list[AgentMessage], int]:
    """``messages`` with ``messages[:covered]`` replaced by ``summary``; ``(view, head)``.

    Every :class:`~pi_sdk.SystemMessage` of the replaced range is kept, in order: a leading one
    stays first (the transcript keeps declaring its own prompt and tools, pi-agent-core 1.6
    ``initialState``), the others follow the summary. ``head`` is the number of view entries
    before ``messages[covered:]``.
    """
    carried = [m for m in messages[:covered] if isinstance(m, SystemMessage)]
    lead = carried[:1] if carried and messages[0] is carried[0] else []
    head: list[AgentMessage] = [*lead, summary, *carried[len(lead) :]]
    return [*head, *messages[covered:]], len(head)


class CompactionError(Exception):
    """The summary could not be written (the summary model failed or answered nothing).

    Raised inside ``transform_context``: the agent ends the run with an error assistant message
    carrying this text; the transcript is unchanged.
    """


@dataclasses.dataclass(frozen=True)
class CompactionRecord:
    """One compaction that ran.

    Attributes:
        tokens_before: Estimated tokens of the request before it.
        tokens_after: Estimated tokens of the compacted request (system prompt and tools
            included when an Agent is attached).
        summarized: Messages this compaction replaced (the earlier summary not counted).
        kept: Messages kept verbatim after the summary.
        forced: It ran because the previous reply was a context overflow.
        summary: The summary message now standing for the older turns.
    """

    tokens_before: int
    tokens_after: int
    summarized: int
    kept: int
    forced: bool
    summary: CompactionSummary


async def _resolve(value: T | Awaitable[T]) -> T:
    if inspect.isawaitable(value):
        return await value
    return value


def _ensure_registered() -> None:
    """Register the summary type by hand when the plugin's entry point was not loaded.

    Unregistered, ``convert_to_llm`` would drop the summary and the model would lose the
    older turns altogether.
    """
    if COMPACTION_SUMMARY_ROLE not in get_message_types():
        register_message_type(CompactionSummary, summary_to_messages, source_id="pi_sdk_compaction")


@dataclasses.dataclass(eq=False, repr=False)
class Compactor:
    """Keeps an agent's requests inside the model's context window by summarizing old turns.

    Example:
        ```python
        from pi_sdk_compaction import Compactor

        compactor = Compactor(pi_sdk.get_model("anthropic", "claude-haiku-4-5"))
        compactor.attach(agent)          # agent.transform_context now compacts
        await agent.prompt("...")        # a long session stays under the window
        if compactor.history:            # what was compacted, when
            print(compactor.history[-1].tokens_before, "->", compactor.history[-1].tokens_after)
        ```

    Args:
        summary_model: The model that writes summaries (any; a small fast one is typical).
        threshold: Share of the context window (0 < threshold <= 1) the estimated request may
            reach before a compaction runs. Default 0.8: the rest is left for the reply and the
            estimate's error (docs/context.md gives the bound).
        keep_recent_tokens: Estimated tokens of the newest messages kept verbatim (pi-coding-
            agent's default 20,000); capped at half of ``threshold`` x window so a compaction
            always frees room.
        context_window: The window in tokens; default: the attached agent's
            ``model.context_window`` (read at every call, so a model switch is followed).
        summary_max_tokens: ``max_tokens`` of each summary call.
        summary_options: Options template for the summary calls (API key, headers, ...);
            ``max_tokens`` and ``signal`` are set per call.
        stream_fn: Replaces :func:`pi_sdk.stream` for the summary calls (tests, proxies).
        instructions: Extra focus appended to the summary prompt.
        convert_to_llm: Maps transcript messages to LLM messages for estimating and summarizing;
            default: the attached agent's, else :func:`pi_sdk.default_convert_to_llm`.

    Raises:
        ValueError: ``threshold`` not in (0, 1], or ``keep_recent_tokens`` / ``summary_max_tokens``
            not positive.
    """

    summary_model: Model
    _: dataclasses.KW_ONLY
    threshold: float = 0.8
    keep_recent_tokens: int = 20_000
    context_window: int | None = None
    summary_max_tokens: int = 4096
    summary_options: StreamOptions | None = None
    stream_fn: SummaryStreamFn | None = None
    instructions: str | None = None
    convert_to_llm: ConvertToLlm | None = None
    history: list[CompactionRecord] = dataclasses.field(
        default_factory=list[CompactionRecord], init=False
    )
    """Every compaction so far, oldest first."""
    _agent: Agent | None = dataclasses.field(default=None, init=False)
    _inner: TransformContext | None = dataclasses.field(default=None, init=False)
    _summary: CompactionSummary | None = dataclasses.field(default=None, init=False)
    _covered: int = dataclasses.field(default=0, init=False)
    """Transcript messages the summary stands for."""
    _anchor: object = dataclasses.field(default=None, init=False)
    """The last of them, by identity."""
    _fresh_at: int = dataclasses.field(default=0, init=False)
    """Transcript length at the compaction: usage of replies after it is current."""
    _handled_overflow: object = dataclasses.field(default=None, init=False)

    def __post_init__(self) -> None:
        """Check the settings."""
        if not 0 < self.threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold!r}")
        if self.keep_recent_tokens <= 0 or self.summary_max_tokens <= 0:
            raise ValueError("keep_recent_tokens and summary_max_tokens must be positive")

    def __repr__(self) -> str:
        return (
            f"Compactor(summary_model={self.summary_model.id!r}, compactions={len(self.history)})"
        )

    # -- wiring ----------------------------------------------------------------------------

    def attach(self, agent: Agent) -> None:
        """Make this compactor ``agent``'s ``transform_context``.

        An existing ``transform_context`` keeps running, first; the compactor sees its result.
        The agent's model (window), system prompt, tools and ``convert_to_llm`` are read at
        every call.
        """
        if agent.transform_context != self.transform_context:  # bound methods: ==, not is
            self._inner = agent.transform_context
        self._agent = agent
        agent.transform_context = self.transform_context

    @property
    def summary(self) -> CompactionSummary | None:
        """The summary standing for the older turns now, or ``None`` before any compaction."""
        return self._summary

    def apply(self, agent: Agent | None = None) -> bool:
        """Write the compacted transcript (summary + kept messages) into the agent, between runs.

        Returns:
            Whether the transcript changed (``False`` before any compaction).

        Raises:
            RuntimeError: no agent given or attached, or the agent is running.
        """
        agent = agent or self._agent
        if agent is None:
            raise RuntimeError("Compactor.apply needs an agent (pass one or attach() first)")
        if agent.is_running:
            raise RuntimeError("Compactor.apply cannot change the transcript during a run")
        messages = list(agent.messages)
        view, _ = self._view(messages)
        summary = self._summary
        if summary is None or (
            len(view) == len(messages) and all(a is b for a, b in zip(view, messages, strict=True))
        ):
            return False
        at = next(i for i, m in enumerate(view) if m is summary)
        head = len(view) - (len(messages) - self._covered)
        self._fresh_at = head + self._fresh_at - self._covered
        self._covered, self._anchor = at + 1, summary
        agent.messages = view
        return True

    # -- the hook --------------------------------------------------------------------------

    async def transform_context(
        self, messages: list[AgentMessage], signal: AbortSignal
    ) -> list[AgentMessage]:
        """The ``transform_context`` hook: the messages the next model call should send.

        Raises:
            CompactionError: a compaction was needed and the summary model failed.
            ConfigurationError: no ``context_window`` and no attached agent with a model.
        """
        _ensure_registered()
        messages = list(messages)
        if self._inner is not None:
            messages = list(await _resolve(self._inner(messages, signal)))
        view, usage_from = self._view(messages)
        window = self._window()
        forced = self._overflowed(messages, window)
        budget = int(window * self.threshold)
        estimate = await self._estimate(view, usage_from)
        if estimate <= budget and not forced:
            return view
        keep = min(self.keep_recent_tokens, max(budget // 2, 1))
        if forced:  # the estimate was wrong: keep a quarter of what it counted, at most
            keep = min(keep, max(estimate // 4, 1))
        compacted = await self._compact(messages, view, keep, estimate, forced, signal)
        return view if compacted is None else compacted

    # -- internals -------------------------------------------------------------------------

    def _window(self) -> int:
        if self.context_window:
            return self.context_window
        model = self._agent.model if self._agent is not None else None
        if model is None:
            from pi_sdk import ConfigurationError

            raise ConfigurationError(
                "Compactor needs context_window=... or an attached Agent with a model"
            )
        return model.context_window

    def _view(self, messages: list[AgentMessage]) -> tuple[list[AgentMessage], int]:
        """``(what the model sees, first view index whose usage is current)``."""
        covered = self._covered
        if not (self._summary is not None and 0 < covered <= len(messages)) or (
            messages[covered - 1] is not self._anchor
        ):
            self._adopt(messages)
            covered = self._covered
        if self._summary is None:
            return messages, 0
        view, head = carry_system_messages(messages, covered, self._summary)
        return view, head + max(self._fresh_at - covered, 0)

    def _adopt(self, messages: list[AgentMessage]) -> None:
        """Forget a summary that is not this transcript's; take one the transcript holds."""
        self._summary, self._covered, self._anchor = None, 0, None
        for index in range(len(messages) - 1, -1, -1):
            found = messages[index]
            if isinstance(found, CompactionSummary):
                self._summary, self._covered, self._anchor = found, index + 1, found
                self._fresh_at = len(messages)
                return

    def _overflowed(self, messages: list[AgentMessage], window: int) -> bool:
        last = messages[-1] if messages else None
        if not isinstance(last, AssistantMessage) or last is self._handled_overflow:
            return False
        from pi_sdk import is_context_overflow  # at a compaction check, not when discovered

        if not is_context_overflow(last, window):
            return False
        self._handled_overflow = last
        return True

    async def _llm(self, message: AgentMessage) -> list[Message]:
        convert = self.convert_to_llm
        if convert is None and self._agent is not None:
            convert = self._agent.convert_to_llm
        return list(await _resolve((convert or default_convert_to_llm)([message])))

    async def _estimate(self, view: Sequence[AgentMessage], usage_from: int) -> int:
        llm: list[Message] = []
        llm_usage_from: int | None = None
        for index, message in enumerate(view):
            if index == usage_from:
                llm_usage_from = len(llm)
            llm.extend(await self._llm(message))
        agent = self._agent
        context = Context(
            system_prompt=(agent.system_prompt or None) if agent is not None else None,
            messages=llm,
            tools=[t.to_tool() for t in agent.tools] or None if agent is not None else None,
        )
        usage_index = len(llm) if llm_usage_from is None else llm_usage_from
        from pi_sdk.agent import estimate_context_tokens

        return estimate_context_tokens(context, usage_from=usage_index).tokens

    async def _compact(
        self,
        messages: list[AgentMessage],
        view: list[AgentMessage],
        keep: int,
        estimate: int,
        forced: bool,
        signal: AbortSignal | None,
    ) -> list[AgentMessage] | None:
        offset = len(messages) - len(view)
        start = self._covered - offset if self._summary is not None else 0  # after the head
        converted = [await self._llm(m) for m in view]
        from pi_sdk.agent import estimate_tokens

        tokens = [sum(estimate_tokens(x) for x in group) for group in converted]
        cut_points = [not isinstance(m, ToolResultMessage) for m in view]
        cut = choose_cut(tokens, cut_points, start=start, keep_tokens=keep)
        if cut is None:
            _logger().warning("context at ~%d tokens but nothing can be compacted", estimate)
            return None
        previous = self._summary
        text = await self._summarize(  # system messages are carried, not summarized
            [
                x
                for group in converted[start:cut]
                for x in group
                if not isinstance(x, SystemMessage)
            ],
            previous.summary if previous is not None else None,
            signal,
        )
        covered = cut + offset
        summary = CompactionSummary(
            summary=text,
            tokens_before=estimate,
            summarized_messages=(previous.summarized_messages if previous else 0) + cut - start,
        )
        self._summary, self._covered, self._anchor = summary, covered, messages[covered - 1]
        self._fresh_at = len(messages)
        compacted, head = carry_system_messages(messages, covered, summary)
        after = await self._estimate(compacted, len(compacted))
        record = CompactionRecord(
            estimate, after, cut - start, len(compacted) - head, forced, summary
        )
        self.history.append(record)
        _logger().info(
            "compacted %d messages: ~%d -> ~%d tokens%s",
            record.summarized,
            estimate,
            after,
            " (after a context overflow)" if forced else "",
        )
        return compacted

    def _chunks(self, llm: list[Message]) -> list[str]:
        """The conversation as text, in pieces the summary model's window can take."""
        window = self.summary_model.context_window
        limit = max(int(window * 0.6) - self.summary_max_tokens, 1000) * 4  # characters
        chunks: list[str] = []
        current: list[str] = []
        size = 0
        for message in llm:
            part = serialize_conversation([message])[:limit]
            if not part:
                continue
            if current and size + len(part) > limit:
                chunks.append("\n\n".join(current))
                current, size = [], 0
            current.append(part)
            size += len(part) + 2
        if current:
            chunks.append("\n\n".join(current))
        return chunks or ["(no messages)"]

    async def _summarize(
        self, llm: list[Message], previous: str | None, signal: AbortSignal | None
    ) -> str:
        summary = previous
        for chunk in self._chunks(llm):
            summary = await self._ask(summary_request(chunk, summary, self.instructions), signal)
        assert summary is not None
        return summary

    async def _ask(self, request: str, signal: AbortSignal | None) -> str:
        options = dataclasses.replace(self.summary_options or StreamOptions())
        options.max_tokens, options.signal = self.summary_max_tokens, signal
        context = Context(system_prompt=SYSTEM_PROMPT, messages=[UserMessage(content=request)])
        if self.stream_fn is not None:
            stream = self.stream_fn(self.summary_model, context, options)
            if not hasattr(stream, "result"):  # an async stream_fn: await it for the stream
                stream = await stream
        else:
            from pi_sdk import stream as pi_stream

            stream = pi_stream(self.summary_model, context, options)
        reply: AssistantMessage = await stream.result()
        if reply.stop_reason in ("error", "aborted"):
            raise CompactionError(
                f"compaction failed: the summary model said: {reply.error_message}"
            )
        text = reply.text.strip()
        if not text:
            raise CompactionError("compaction failed: the summary model wrote no text")
        return text
