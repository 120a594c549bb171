"""Per-call options shared by every provider (pi-mono StreamOptions + SimpleStreamOptions)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.choices import check_choice
from pi_sdk._wire.exports import lazy_exports
from pi_sdk._wire.levels import check_reasoning
from pi_sdk.types import CacheRetention, Context, Model, ThinkingLevel

if TYPE_CHECKING:
    from pi_sdk._wire.output import Output as Output
    from pi_sdk._wire.output import OutputMode as OutputMode
    from pi_sdk._wire.output import StructuredOutput as StructuredOutput
    from pi_sdk._wire.output import parse_output as parse_output

__all__ = [
    "ForeignReasoning",
    "Output",
    "OutputMode",
    "PayloadHook",
    "RetryNotice",
    "StreamOptions",
    "StructuredOutput",
    "parse_output",
]

# The typed answer's names (and the output cap's token estimate) are imported with their first
# use, a call or a name read: plugin discovery and the first Agent import this module (issue 32).
_OUTPUT_NAMES = ("Output", "OutputMode", "StructuredOutput", "parse_output")
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(_OUTPUT_NAMES, "pi_sdk._wire.output"))

PayloadHook: TypeAlias = Callable[
    [dict[str, Any], Model], "dict[str, Any] | None | Awaitable[dict[str, Any] | None]"
]
"""``on_payload(payload, model)``: sync or async; a non-``None`` return replaces the payload."""


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """A retry about to happen: what ``StreamOptions.on_retry`` receives.

    The same facts are logged (INFO, logger ``pi_sdk.retry``, the notice in the record's
    ``retry`` attribute). Field names follow pi's ``auto_retry_start`` event (``attempt``,
    ``maxAttempts``, ``delayMs``, ``errorMessage``).
    """

    attempt: int
    """The attempt that just failed, from 1."""
    max_attempts: int
    """Attempts the call may make in all: ``1 + max_retries``."""
    delay_ms: float
    """Milliseconds until the next attempt (backoff with jitter, or the server's
    ``retry-after``; 0 after a first-byte timeout)."""
    error_message: str
    """Why the attempt failed, secrets redacted: ``"429 rate_limit_error: ..."``, ``"could
    not connect to the server: ..."``, ``"timed out: no response ..."``."""
    status: int | None = None
    """The HTTP status of the failure (429, 503, ...); ``None`` for a connection error or a
    timeout."""


RetryHook: TypeAlias = Callable[[RetryNotice], object]
"""``on_retry(notice)``: sync or async; its return value is ignored."""

ForeignReasoning: TypeAlias = Literal["drop", "text", "tagged"]
"""What happens to thinking from another model when history is replayed (pi-spec §5)."""


@dataclass(kw_only=True)
class StreamOptions:
    """Options for one call to ``stream()`` / ``complete()``.

    Every field is optional; providers ignore what their API lacks. ``reasoning`` is pi-mono's
    unified "simple" level, mapped per provider (pi-spec §3.3); ``provider_options`` carries
    API-specific keys (e.g. Anthropic ``tool_choice``, ``effort``).
    """

    temperature: float | None = None
    max_tokens: int | None = None
    """Output token cap. Default: ``model.max_tokens``. Either way fitted into the context window
    beside the estimated input (pi-ai 1.6; :meth:`resolved_max_tokens`)."""
    signal: AbortSignal | None = None
    """Abort signal held by the caller (``AbortController().signal``)."""
    api_key: str | None = None
    """Overrides the key found through the ``get_api_key`` plugin hook / environment."""
    reasoning: ThinkingLevel | None = None
    """Unified reasoning level; ``None`` (or ``"off"``) means thinking off. Any other value
    raises :class:`ValueError` naming the valid levels. Per model, see
    :meth:`pi_sdk.Model.supported_thinking_levels` / :meth:`pi_sdk.Model.clamp_thinking_level`."""
    thinking_budgets: dict[str, int] | None = None
    """Token budgets per level (``minimal``..``high``) for budget-based models."""
    cache_retention: CacheRetention | None = None
    """``None`` means ``"short"``, or ``"long"`` when ``PI_CACHE_RETENTION=long``."""
    session_id: str | None = None
    """Used for prompt-cache keys and affinity (OpenAI Responses ``prompt_cache_key``)."""
    on_payload: PayloadHook | None = None
    headers: dict[str, str] | None = None
    """Extra HTTP headers, merged last."""
    metadata: dict[str, Any] | None = None
    max_retries: int = 2
    """Retries of a retryable failure (HTTP 408/409/429/5xx, connection errors) that happens
    before any content arrived. pi-sdk owns retries; the vendor SDKs' own are turned off. A
    call that fails after retrying says so: ``"... (after 3 attempts)"``."""
    on_retry: RetryHook | None = None
    """``on_retry(notice)``, sync or async, called before each retry's wait with a
    :class:`RetryNotice` (attempt, attempts allowed, wait, reason, status): progress for a
    user who would otherwise see a silent pause (``pi-sdk prompt`` prints it on stderr). An
    exception it raises is logged (logger ``pi_sdk.retry``) and ignored. Not called on the
    first attempt: a call that succeeds at once costs nothing more."""
    max_retry_delay_ms: int = 60_000
    """Cap on one retry wait, milliseconds; 0 disables the cap. When the server asks for a
    longer wait (``Retry-After``, ``retry-after-ms``, ``x-ratelimit-reset[-after]``), the call
    fails at once with an error naming the requested delay instead of retrying early (pi-mono
    ``maxRetryDelayMs``: the vendor said it would refuse a sooner call)."""
    timeout_ms: float | None = 600_000
    """Longest wait, in milliseconds, for the response to start: connecting, the headers and
    the first bytes of the body (a reasoning model may think for minutes before them).
    Exceeded, the attempt is retried like a connection error, then the call ends with an
    ``error`` event. ``None`` waits forever. Default 10 minutes: the vendor SDKs' request
    timeout, which pi-ai 0.73's ``timeoutMs`` (the same option) sets."""
    idle_timeout_ms: float | None = 300_000
    """Once the response started, the longest silence allowed, in milliseconds: no event and
    no byte (a vendor's keep-alive, such as Anthropic's ``ping`` events or an SSE comment,
    counts as activity). Exceeded, the call ends with an ``error`` event ("timed out: the
    provider sent nothing for ..."), partial content kept; never retried. ``None``: no limit.
    Default 5 minutes: Node's fetch (undici) body timeout, under which pi-ai runs, and the
    stream idle timeout of OpenAI's Codex client. See docs/streaming.md."""
    foreign_reasoning: ForeignReasoning = "drop"
    """Thinking from another model: ``drop`` it (pi-ai 1.6, the default), send it as plain
    ``text`` (pi-ai 0.73), or as ``tagged`` text (``<thinking>...</thinking>``). Servers that
    take reasoning back in ``reasoning_content`` (DeepSeek, Kimi) get it there whatever this
    says, unless it is ``drop``."""
    on_response: Callable[[int, Mapping[str, str]], object] | None = None
    """``on_response(status, headers)``, sync or async, called once a successful HTTP response
    arrived and before its body is read: rate-limit headers, request ids (pi-ai 0.73
    ``onResponse``). Providers that read the HTTP body themselves call it (every first-party
    API but Bedrock, whose SDK hides the response); an exception it raises fails the call."""
    tool_choice: str | dict[str, str] | None = None
    """Whether and which tool the model must call, mapped per wire API (pi-ai 0.73
    ``toolChoice``): ``"auto"`` (the model decides), ``"none"`` (no tool call), ``"required"``
    (some tool call), or ``{"name": "<tool>"}`` (that tool). ``None``: the API's default. A
    ``provider_options["tool_choice"]`` in the API's own shape wins over it."""
    output: Any = None
    """Typed answer (structured output): a pydantic model class, a type pydantic validates,
    a JSON Schema ``dict`` or an :class:`Output`. The request asks for JSON following it with
    the wire API's native mechanism or a forced ``final_answer`` tool
    (docs/structured-output.md), and the final message's :attr:`~pi_sdk.AssistantMessage.output`
    holds the parsed :class:`StructuredOutput` (a failure is data: ``error`` and ``raw``).
    Stored as an :class:`Output` once the options are built.

    Raises (at construction): TypeError when it is none of these."""
    fallback: Any = None
    """Models to move on to when this call fails (issue 28): a
    :class:`pi_sdk.FallbackPolicy`, or a list of models (``Model`` objects or
    ``"provider/id"`` strings) for one with its defaults. A failure the policy moves on from
    (connection, 429 after the retries, 5xx/overloaded, context overflow to a larger window)
    tries the next model before any content reached the caller; after content, the policy's
    ``after_content`` ends the call or continues on the next model. ``None``: no fallback.
    See docs/fallback-limits-retries.md."""
    server_tools: list[str | dict[str, Any]] | None = None
    """Tools the vendor runs itself, enabled for this call (issue 29): the neutral names
    ``"web_search"``, ``"web_fetch"`` and ``"code_execution"``, each sent as the wire API's own
    tool (Anthropic ``web_search_20250305``..., Responses ``web_search``, Gemini
    ``googleSearch``...), and vendor tool definitions (``dict``) sent as they are (a Responses
    ``{"type": "image_generation"}``). Their calls and results come back as
    :class:`~pi_sdk.types.ServerToolCall` / ``ServerToolResult`` blocks (docs/server-tools.md).

    Raises (when the request is built): ConfigurationError for a name the target API has no
    tool for, naming the model and what it offers."""
    client: Any = None
    """A pre-built vendor SDK client to use instead of building one (proxies, tests)."""
    provider_options: dict[str, Any] = field(default_factory=dict[str, Any])
    """API-specific options; each provider documents the keys it reads."""

    def resolved_server_tools(
        self, model: Model, definitions: Mapping[str, Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """:attr:`server_tools` as the definitions of ``model``'s API, in order.

        ``definitions`` is the provider's table, neutral name -> its API's tool definition
        (:mod:`pi_sdk._wire.server_tool_options`).

        Raises:
            ConfigurationError: an unknown name, or one the API has no tool for.
        """
        from pi_sdk._wire.server_tool_options import server_tool_definitions

        where = f"{model.provider}/{model.id} ({model.api})"
        return server_tool_definitions(self.server_tools, definitions, where)

    def resolved_tool_choice(
        self,
    ) -> tuple[Literal["auto", "none", "required", "tool"], str] | None:
        """``tool_choice`` checked: ``(kind, tool name or "")``, or ``None`` when unset.

        Raises:
            ConfigurationError: not one of the documented values.
        """
        choice = self.tool_choice
        if choice is None:
            return None
        if choice == "auto":
            return ("auto", "")
        if choice == "none":
            return ("none", "")
        if choice == "required":
            return ("required", "")
        if isinstance(choice, dict) and isinstance(choice.get("name"), str) and choice["name"]:
            return ("tool", choice["name"])
        from pi_sdk.errors import ConfigurationError

        raise ConfigurationError(
            "tool_choice must be 'auto', 'none', 'required' or {'name': '<tool>'};"
            f" got {choice!r}"
        )

    def __post_init__(self) -> None:
        """Check the settings a provider cannot check itself.

        Raises:
            ValueError: ``reasoning`` is not a level (``"minimal"`` .. ``"xhigh"``); the
                message names the valid ones. ``"off"`` is accepted and becomes ``None``.
                ``cache_retention`` or ``foreign_reasoning`` is none of its names (named).
            TypeError: ``output`` is not a type pydantic validates, a JSON Schema dict or an
                :class:`Output`.
        """
        self.reasoning = cast("ThinkingLevel | None", check_reasoning(self.reasoning))
        check_choice("cache_retention", self.cache_retention, CacheRetention, optional=True)
        check_choice("foreign_reasoning", self.foreign_reasoning, ForeignReasoning)
        if self.output is not None:
            from pi_sdk._wire.output import Output

            self.output = Output.of(self.output)

    def resolved_output(self) -> Output | None:
        """``output`` as an :class:`Output`, or ``None`` when no typed answer was asked for."""
        output = self.output
        if output is None:
            return None
        from pi_sdk._wire.output import Output

        return output if isinstance(output, Output) else Output.of(output)

    def resolved_max_tokens(self, model: Model, context: Context) -> int:
        """The output cap to send, in tokens (pi-ai 1.6 ``buildBaseOptions``).

        ``max_tokens``, else ``model.max_tokens``, fitted into ``model.context_window`` beside
        the estimated input of ``context`` with a safety margin
        (:func:`pi_sdk._wire.output_cap.clamp_max_tokens_to_context`); at least 1.
        """
        from pi_sdk._wire.output_cap import clamp_max_tokens_to_context

        wanted = self.max_tokens if self.max_tokens is not None else model.max_tokens
        return clamp_max_tokens_to_context(model.context_window, context, wanted)

    def resolved_thinking_budget(self, model: Model, context: Context) -> tuple[int, int]:
        """``(max_tokens, thinking_budget)`` for a model with a thinking budget, in tokens.

        pi-ai 1.6 (``adjustMaxTokensForThinking``): the level's budget (``thinking_budgets``,
        else 1,024 / 2,048 / 8,192 / 16,384 for minimal..high; ``xhigh``/``max`` as high) is
        added to :meth:`resolved_max_tokens` up to ``model.max_tokens``, the sum fitted into the
        context window again, and the budget leaves 1,024 tokens of it for the answer. Call it
        with ``reasoning`` set.
        """
        from pi_sdk._wire.output_cap import fit_thinking_budget

        level = self.reasoning or "high"
        return fit_thinking_budget(
            model.context_window,
            context,
            self.resolved_max_tokens(model, context),
            model.max_tokens,
            level,
            self.thinking_budgets,
        )

    def resolved_cache_retention(self) -> CacheRetention:
        """``cache_retention``, defaulting from ``PI_CACHE_RETENTION`` then ``"short"``."""
        if self.cache_retention is not None:
            return self.cache_retention
        return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"

    def __repr__(self) -> str:
        # Never show credentials: the API key and header values are masked.
        fields: list[str] = []
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if value is None or (name == "provider_options" and not value):
                continue
            if name == "api_key":
                value = "***"
            elif name == "headers":
                value = dict.fromkeys(value, "***")
            fields.append(f"{name}={value!r}")
        return f"StreamOptions({', '.join(fields)})"
