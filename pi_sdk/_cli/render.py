"""Agent events on a terminal (rich): live text, collapsible thinking, tools, usage and cost.

* **Text** streams as it comes.
* **Thinking** streams dim (the last lines, in place) while it lasts, then collapses to one dim
  line (``▸ thinking: 42 words``); ``/thinking`` in the chat prints it whole. Without a
  cursor-addressable terminal only the collapsed line is printed.
* **Tool calls** show their name and arguments when the model has sent them, then their result
  (or error) when the tool has run.
* **Server tools** (a vendor's web search, code run...) show their call and result, a cited
  text block the sources it cites (``[source] title <url>``); an **image** the model made is
  saved to a file named after the session (:mod:`pi_sdk._cli.image_files`), whose path is
  printed.
* After each model call, one dim line: model, tokens in and out (cache reads and writes when
  there are any), the call's cost in USD and the session's running totals.

Also :class:`JsonLines`, the ``--json`` listener: one agent event per line in pi-mono's wire
shape (:func:`pi_sdk.agent.agent_event_to_dict` without the ``partial`` snapshots).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pi_sdk import events
from pi_sdk._agent.tool_calls import BLOCKED_DETAILS
from pi_sdk._cli.common import plural
from pi_sdk._cli.hints import missing_key_hint
from pi_sdk._cli.image_files import save_image
from pi_sdk._wire.agent_types import (
    AgentEvent,
    AgentMessage,
    MessageEndEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    agent_event_to_dict,
)
from pi_sdk._wire.server_tools import server_block_text
from pi_sdk.types import (
    AssistantMessage,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

__all__ = [
    "JsonLines",
    "Totals",
    "TurnPrinter",
    "result_text",
    "short",
    "tool_outcome",
    "transcript_lines",
    "usage_line",
]

_THINKING_TAIL = 6
"""Lines of thinking shown in place while it streams."""


def short(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class Totals:
    """The session's usage so far: tokens and USD."""

    calls: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def add(self, usage: Usage) -> None:
        """Count one model call's usage."""
        self.calls += 1
        self.input += usage.input
        self.output += usage.output
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        self.cost += usage.cost.total

    def describe(self) -> str:
        """``2 calls · 10 in · 6 out · $0.000096``."""
        tokens = _tokens(self.input, self.output, self.cache_read, self.cache_write)
        return f"{plural(self.calls, 'call')} · {tokens} · ${self.cost:.6f}"


def _tokens(input: int, output: int, cache_read: int, cache_write: int) -> str:
    text = f"{input:,} in · {output:,} out"
    if cache_read or cache_write:
        text += f" · cache {cache_read:,} read, {cache_write:,} written"
    return text


def usage_line(message: AssistantMessage, totals: Totals) -> str:
    """``model · tokens · cost │ session: calls · tokens · cost`` for one model call."""
    u = message.usage
    call = _tokens(u.input, u.output, u.cache_read, u.cache_write)
    estimated = " (estimated)" if message.usage_estimated else ""
    return (
        f"{message.provider}/{message.model} · {call}{estimated} · ${u.cost.total:.6f}"
        f"  │  session: {totals.describe()}"
    )


_SOURCES_SHOWN = 8
"""Sources of one server-tool result ``pi-sdk chat`` prints (the rest are counted)."""


def sources_of(result: ServerToolResult) -> list[str]:
    """``title <url>`` of every source in a server tool's result (web search, fetch...)."""
    lines = server_block_text(result).splitlines()
    return [line.removeprefix("- ") for line in lines if line.startswith("- ")]


def cited_sources(block: object) -> list[str]:
    """``[source] title <url>`` for each source a text block cites, each URL once."""
    if not isinstance(block, TextContent) or not block.citations:
        return []
    seen: dict[str, str] = {}
    for citation in block.citations:
        where = citation.url or citation.title
        if where and where not in seen:
            title = citation.title if citation.url and citation.title else ""
            seen[where] = f"[source] {title} {where}".replace("  ", " ")
    return list(seen.values())


def server_block_line(block: ServerToolCall | ServerToolResult) -> str:
    """One line for a server tool's call or result.

    ``⌕ web_search {"query": ...}``; ``⌕ web_search_tool_result: 10 sources``, or its error.
    """
    if isinstance(block, ServerToolCall):
        arguments = short(json.dumps(block.arguments, ensure_ascii=False), 200)
        return f"⌕ {block.name} {arguments}"
    if block.error:
        return f"⌕ {block.kind}: error {block.error}"
    count = len(sources_of(block))
    return f"⌕ {block.kind}" + (f": {plural(count, 'source')}" if count else "")


def result_text(content: Iterable[UserContent]) -> str:
    """The text blocks of a tool result (images as ``[image]``, documents as ``[document]``)."""
    parts = [
        b.text
        if isinstance(b, TextContent)
        else "[image]"
        if isinstance(b, ImageContent)
        else f"[document{': ' + b.name if b.name else ''}]"
        for b in content
    ]
    return " ".join(parts)


def tool_outcome(
    name: str,
    content: Iterable[UserContent],
    details: object,
    is_error: bool,
    limit: int = 200,
) -> tuple[str, str]:
    """``(line, style)`` for a finished tool call, live or replayed.

    ``⊘ rm blocked: <reason>`` for a call a ``before_tool_call`` hook refused (its result's
    ``details`` is ``{"blocked": true}``), ``✘ boom failed: <error>`` for any other error
    result, ``✔ ok → <result>`` otherwise.
    """
    text = short(result_text(content), limit)
    if is_error and details == BLOCKED_DETAILS:
        return f"⊘ {name} blocked: {text}", "yellow"
    if is_error:
        return f"✘ {name} failed: {text}", "red"
    return f"✔ {name} → {text}", "green"


def _raise_broken_pipe() -> None:
    raise BrokenPipeError(32, "the reader of the answer's output left")


class TurnPrinter:
    """An Agent listener printing each event on a rich :class:`~rich.console.Console`."""

    def __init__(
        self,
        console: Console,
        *,
        notes: Console | None = None,
        totals: Totals | None = None,
        thinking_hint: bool = True,
        session_file: Callable[[], Path] | None = None,
    ) -> None:
        self.console = console
        """Where the answer's text goes."""
        # rich ends the process (SystemExit) when the console's reader leaves; raise the
        # BrokenPipeError instead, for the command's PipeGuard (pi_sdk._cli.closed_stdout).
        setattr(console, "on_broken_pipe", _raise_broken_pipe)  # noqa: B010
        self.thinking_hint = thinking_hint
        """Say ``/thinking`` shows the collapsed thinking (``chat``; ``prompt`` has no commands)."""
        self.notes = notes or console
        """Where everything else goes (``prompt`` puts it on stderr)."""
        self.totals = totals or Totals()
        self.last_thinking = ""
        """The last model call's thinking, whole (``/thinking``)."""
        self.session_file = session_file
        """The session file the images the model makes are saved beside (``None``: not saved)."""
        self._cited: set[int] = set()
        """The text blocks (``id``) whose sources were printed in this call."""
        self._thinking: list[str] = []
        self._live: Live | None = None
        self._at_line_start = True

    def _print(self, text: str, style: str = "", *, end: str = "\n") -> None:
        from rich.text import Text

        if end == "\n":
            self._newline()
        console = self.console if end == "" else self.notes
        console.print(Text(text, style=style), end=end, soft_wrap=True)
        self._at_line_start = end == "\n" or text.endswith("\n")

    def _newline(self) -> None:
        if not self._at_line_start:
            self.console.print()
            self._at_line_start = True

    def note(self, text: str, style: str = "dim") -> None:
        """One line outside the model's answer (a command's result, a warning)."""
        self._print(text, style)

    def __call__(self, event: AgentEvent) -> None:
        """Print ``event``."""
        if isinstance(event, MessageUpdateEvent):
            self._update(event)
        elif isinstance(event, ToolExecutionStartEvent):
            self._print(f"⚙ running {event.tool_name}…", "cyan")
        elif isinstance(event, ToolExecutionEndEvent):
            result = event.result
            self._print(
                *tool_outcome(event.tool_name, result.content, result.details, event.is_error)
            )
        elif isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            self._end(event.message)

    def _update(self, event: MessageUpdateEvent) -> None:
        inner = event.assistant_message_event
        if isinstance(inner, events.TextDeltaEvent):
            self._print(inner.delta, end="")
        elif isinstance(inner, events.TextEndEvent):
            self._newline()
            self._sources(inner.partial.content[inner.content_index])
        elif isinstance(inner, events.TextStartEvent):
            self._newline()
        elif isinstance(inner, events.ThinkingStartEvent):
            self._thinking = []
            self._start_live()
        elif isinstance(inner, events.ThinkingDeltaEvent):
            self._thinking.append(inner.delta)
            self._refresh_live()
        elif isinstance(inner, events.ThinkingEndEvent):
            self._stop_live()
            self.last_thinking = "".join(self._thinking)
            words = plural(len(self.last_thinking.split()), "word")
            hint = " (/thinking shows it)" if self.thinking_hint else ""
            self._print(f"▸ thinking: {words}{hint}", "dim italic")
        elif isinstance(inner, events.ToolCallEndEvent):
            call = inner.tool_call
            arguments = short(json.dumps(call.arguments, ensure_ascii=False), 200)
            self._print(f"→ {call.name} {arguments}", "cyan")
        elif isinstance(inner, events.ServerToolCallEvent):
            self._newline()
            self._print(server_block_line(inner.server_tool_call), "cyan")
        elif isinstance(inner, events.ServerToolResultEvent):
            result = inner.server_tool_result
            self._print(server_block_line(result), "red" if result.error else "dim cyan")
            for source in sources_of(result)[:_SOURCES_SHOWN]:
                self._print(f"  {source}", "dim")
        elif isinstance(inner, events.ImageEvent):
            self._newline()
            self._print(*self._saved(inner.image))

    def _sources(self, block: object) -> None:
        """Print the sources ``block`` cites, once per block."""
        lines = cited_sources(block)
        if lines and id(block) not in self._cited:
            self._cited.add(id(block))
            for line in lines[:_SOURCES_SHOWN]:
                self._print(f"  {line}", "dim")

    def _saved(self, image: ImageContent) -> tuple[str, str]:
        """Save an image the model made; ``(line, style)`` saying where, or why not."""
        size = f"{len(image.data) * 3 // 4 // 1024:,} KiB"
        if self.session_file is None:
            return f"🖼 {image.mime_type} image, {size} (kept in the transcript)", "cyan"
        try:
            path = save_image(image, self.session_file())
        except (OSError, ValueError) as exc:
            return f"🖼 {image.mime_type} image not saved: {exc}", "red"
        return f"🖼 {image.mime_type} image, {size}, saved to {path}", "cyan"

    def _start_live(self) -> None:
        if not self.notes.is_terminal or self.notes.is_dumb_terminal:
            return
        from rich.live import Live

        self._live = Live(console=self.notes, transient=True, auto_refresh=False)
        self._live.start()

    def _refresh_live(self) -> None:
        if self._live is None:
            return
        from rich.text import Text

        tail = "".join(self._thinking).splitlines()[-_THINKING_TAIL:]
        self._live.update(Text("\n".join(tail), style="dim italic"), refresh=True)

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _end(self, message: AssistantMessage) -> None:
        self._stop_live()
        for block in message.content:  # sources cited after their text ended (Gemini)
            self._sources(block)
        self._cited = set()
        if message.stop_reason == "error":
            text = message.error_message or "unknown error"
            self._print(f"✘ error: {missing_key_hint(text) or text}", "red")
        elif message.stop_reason == "aborted":
            self._print("✘ the answer was aborted", "yellow")
        self.totals.add(message.usage)
        self._print(usage_line(message, self.totals), "dim")


class JsonLines:
    """An Agent listener writing each event as one JSON line (pi's wire shape).

    The events are data and keep the library's words; an answer that failed for want of an
    API key also gets one ``pi-sdk: error:`` line on ``notes`` (stderr) saying how to store one.
    """

    def __init__(self, out: TextIO, notes: TextIO | None = None) -> None:
        self.out = out
        self.notes = notes

    def __call__(self, event: AgentEvent) -> None:
        """Write ``event``."""
        record = agent_event_to_dict(event, include_partial=False)
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.out.flush()
        if self.notes is not None and isinstance(event, MessageEndEvent):
            message = event.message
            if isinstance(message, AssistantMessage) and message.stop_reason == "error":
                hint = missing_key_hint(message.error_message or "")
                if hint is not None:
                    self.notes.write(f"pi-sdk: error: {hint}\n")


def transcript_lines(messages: Iterable[AgentMessage]) -> list[tuple[str, str]]:
    """``(text, style)`` lines summarizing a transcript, for a continued chat."""
    lines: list[tuple[str, str]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            text = content if isinstance(content, str) else result_text(content)
            lines.append((f"you › {short(text)}", "bold"))
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextContent):
                    lines.append((f"{message.model} › {short(block.text)}", ""))
                elif isinstance(block, ThinkingContent):
                    words = plural(len(block.thinking.split()), "word")
                    lines.append((f"▸ thinking: {words}", "dim italic"))
                elif isinstance(block, ToolCall):
                    lines.append((f"→ {block.name}", "cyan"))
                elif isinstance(block, ImageContent):
                    lines.append((f"🖼 {block.mime_type} image", "cyan"))
                else:
                    lines.append((server_block_line(block), "dim cyan"))
                    if isinstance(block, ServerToolResult):
                        lines.extend((f"  {s}", "dim") for s in sources_of(block)[:_SOURCES_SHOWN])
        elif isinstance(message, ToolResultMessage):
            line, style = tool_outcome(
                message.tool_name, message.content, message.details, message.is_error, limit=160
            )
            lines.append((line, "dim" if style == "green" else style))
    return lines
