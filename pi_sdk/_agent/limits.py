"""Enforcing :class:`pi_sdk.UsageLimits` in an agent run.

Where the loop checks (pydantic-ai ``UsageLimits`` is the model; pi has no per-run limits):

* **before each request**, the conversion done: the request itself (``request_limit``), its
  input tokens added to those used (``input_tokens_limit`` / ``total_tokens_limit``; the
  estimate of :func:`pi_sdk.estimate_context_tokens`, or the exact count of
  ``UsageLimits.count_tokens``, e.g. :func:`pi_sdk.count_tokens`; a count that fails falls back
  to the estimate, says so once per run at WARNING, and names it in the diagnostic), and whether
  the output tokens or the budget are spent;
* **after each reply**, its reported usage (every reply counts, failed ones too): a reply that
  passed a token or cost limit has its tool calls answered with an error result instead of
  running them;
* **before each tool batch**: ``tool_calls_limit`` (the whole batch runs or none of it).

The run then ends before its next request with an assistant message that was never requested:
``stop_reason`` ``"error"``, an ``error_message`` naming the limit, its value and the count, and a
``usage_limit`` diagnostic (``details``: ``limit``, ``max``, ``used``). Nothing is lost: every
tool call has its result, and ``continue_()`` after raising the limit makes that request (the
next run counts from zero: the limits are per run).
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._wire.estimate import estimate_context_tokens
from pi_sdk._wire.usage_limits import USAGE_LIMIT_DIAGNOSTIC, RunUsage, UsageLimits
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Diagnostic, Model

__all__ = ["RunLimits", "limit_text"]

Stop = tuple[str, float, float]

logger = logging.getLogger("pi_sdk._agent.agent")

_WHAT = {
    "request_limit": "requests",
    "input_tokens_limit": "input tokens",
    "output_tokens_limit": "output tokens",
    "total_tokens_limit": "total tokens",
    "cost_limit_usd": "cost (USD)",
    "tool_calls_limit": "tool calls",
}


def _number(value: float) -> str:
    return (
        f"{value:.6g}" if isinstance(value, float) and not value.is_integer() else f"{value:,.0f}"
    )


def limit_text(stop: Stop) -> str:
    """The error text of a run stopped at ``stop`` (``(limit name, max, count)``)."""
    name, limit, count = stop
    return (
        f"Usage limit reached: {_WHAT[name]} {_number(count)} would pass"
        f" UsageLimits.{name}={_number(limit)}. The run stopped before the next request; raise"
        " the limit and continue the run to go on."
    )


class RunLimits:
    """One run's :class:`~pi_sdk.UsageLimits`, what it used so far, and the limit it passed."""

    __slots__ = ("count_reason", "counted", "limits", "passed", "used", "warned")

    def __init__(self, limits: UsageLimits) -> None:
        self.limits = limits
        self.used = RunUsage()
        self.passed: Stop | None = None
        """The limit a reply or a tool batch passed: the run ends before its next request."""
        self.counted: str | None = None
        """How the last request's input was counted: ``"vendor"``, ``"estimate"``, ``None``."""
        self.count_reason: str | None = None
        """Why the last count is an estimate though ``count_tokens`` was given (else ``None``)."""
        self.warned = False

    async def before_request(
        self, model: Model, context: Context, options: StreamOptions
    ) -> Stop | None:
        """The limit the request for ``context`` would pass, else ``None`` (request counted)."""
        if self.passed is not None:
            self.counted = None  # a reply passed it: this request was not counted
            return self.passed
        limits = self.limits
        tokens = 0
        if limits.limits_input and limits.count_tokens_before_request:
            tokens = await self._input_tokens(model, context, options)
        stop = limits.before_request(self.used, tokens)
        if stop is None:
            self.used.requests += 1
        return stop

    async def _input_tokens(self, model: Model, context: Context, options: StreamOptions) -> int:
        """The request's input tokens: counted exactly when asked to, else estimated."""
        count = self.limits.count_tokens
        if count is None:
            self.counted = "estimate"
            return estimate_context_tokens(context).tokens
        try:
            answer: Any = count(model, context, options)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # noqa: BLE001 - the estimate stands in, and says so
            reason = f"count_tokens raised {type(exc).__name__}: {exc}"
        else:
            tokens = getattr(answer, "tokens", answer)
            source = getattr(answer, "source", "vendor")
            exact = isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0
            if exact and source != "estimate":
                self.counted, self.count_reason = "vendor", None
                return tokens
            reason = getattr(answer, "reason", None) or f"count_tokens answered {answer!r}"
        if not self.warned:  # once per run: every request would say the same
            self.warned = True
            logger.warning("exact token count unavailable, using the estimate: %s", reason)
        self.counted, self.count_reason = "estimate", reason
        return estimate_context_tokens(context).tokens

    def after_reply(self, message: AssistantMessage) -> None:
        """Count ``message``'s usage; note a token or cost limit it passed."""
        self.used.add_reply(message.usage)
        if self.passed is None:
            self.passed = self.limits.after_reply(self.used)

    def before_tools(self, calls: int) -> Stop | None:
        """The limit running ``calls`` tool calls would pass, else ``None``.

        A limit passed is noted; otherwise the calls are counted.
        """
        if self.passed is not None:
            return self.passed
        stop = self.limits.before_tools(self.used, calls)
        if stop is None:
            self.used.tool_calls += calls
        else:
            self.passed = stop
        return stop

    def stop_message(self, model: Model, stop: Stop) -> AssistantMessage:
        """The assistant message that ends a run at ``stop`` (no request was made).

        Its diagnostic's ``details``: ``limit``, ``max``, ``used``; for an input or total limit
        checked before a request, ``inputCount`` (``"vendor"`` / ``"estimate"``) and, for an
        estimate standing in for a failed exact count, ``inputCountReason``.
        """
        message = new_assistant_message(model)
        message.stop_reason = "error"
        message.error_message = limit_text(stop)
        name, limit, count = stop
        details: dict[str, Any] = {"limit": name, "max": limit, "used": count}
        if name in ("input_tokens_limit", "total_tokens_limit") and self.counted is not None:
            details["inputCount"] = self.counted
            if self.count_reason is not None:
                details["inputCountReason"] = self.count_reason
        message.diagnostics = [Diagnostic(type=USAGE_LIMIT_DIAGNOSTIC, details=details)]
        return message
