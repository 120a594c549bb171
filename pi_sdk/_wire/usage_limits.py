"""Per-run usage limits: tokens, cost, requests and tool calls (pydantic-ai ``UsageLimits``).

A looping agent spends without bound unless something stops it. :class:`UsageLimits` bounds one
agent run (``prompt()`` / ``continue_()`` / ``agent_loop``); :class:`RunUsage` is what the run has
used so far. The loop checks the limits before each request (the request counted, and its input
estimated, :func:`pi_sdk.estimate_context_tokens`, or counted by ``count_tokens``), after each
reply (its reported usage) and before each tool batch. A run that reaches a limit ends cleanly: see
:mod:`pi_sdk._agent.limits` for how.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from pi_sdk.types import Usage

__all__ = ["USAGE_LIMIT_DIAGNOSTIC", "RunUsage", "UsageLimits"]

USAGE_LIMIT_DIAGNOSTIC = "usage_limit"
"""Diagnostic type on the message that ends a run at a limit; ``details``: ``limit`` (the field
name, e.g. ``"request_limit"``), ``max`` (its value) and ``used`` (the count that would pass it)."""


@dataclass(kw_only=True, slots=True)
class RunUsage:
    """What one agent run has used so far (every reply counts, failed ones too).

    Attributes:
        requests: Model requests made.
        input_tokens: Input tokens reported, cache reads and writes included (tokens).
        output_tokens: Output tokens reported, reasoning included (tokens).
        cost_usd: Cost of the replies (USD, from the catalog prices or the vendor's bill).
        tool_calls: Tool calls run (executed, not blocked or skipped).
    """

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    tool_calls: int = 0

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens``."""
        return self.input_tokens + self.output_tokens

    def add_reply(self, usage: Usage) -> None:
        """Count one reply's reported usage."""
        self.input_tokens += usage.input + usage.cache_read + usage.cache_write
        self.output_tokens += usage.output
        self.cost_usd += usage.cost.total


@dataclass(kw_only=True, frozen=True, slots=True)
class UsageLimits:
    """Limits on one agent run; ``None`` fields are unlimited.

    Example:
        ```python
        agent = pi_sdk.Agent(model=model, usage_limits=pi_sdk.UsageLimits(request_limit=20))
        ```

    Attributes:
        request_limit: Most model requests (retries included).
        input_tokens_limit: Most input tokens over the run's requests (cache included).
        output_tokens_limit: Most output tokens over the run's replies.
        total_tokens_limit: Most input plus output tokens.
        cost_limit_usd: Most spent, in USD.
        tool_calls_limit: Most tool calls run.
        count_tokens_before_request: Before a request, add its input tokens to the used ones
            and stop if that passes an input or total limit (default ``True``); ``False``: token
            limits are checked after each reply only.
        count_tokens: Count those input tokens exactly instead of estimating them: an
            ``async (model, context, options) -> TokenCount | int`` such as
            :func:`pi_sdk.count_tokens` or :meth:`pi_sdk.Models.count_tokens` (the vendor's
            counting endpoint: one more request per turn). A count that fails, raises, or comes
            back as an estimate falls back to the estimate, and says so (a WARNING once per run
            on ``pi_sdk._agent.agent``, and the ``usage_limit`` diagnostic's ``inputCount`` /
            ``inputCountReason``). ``None`` (default): the estimate.

    Raises:
        ValueError: a limit is zero or negative (``None`` means no limit), or not a number.
    """

    request_limit: int | None = None
    input_tokens_limit: int | None = None
    output_tokens_limit: int | None = None
    total_tokens_limit: int | None = None
    cost_limit_usd: float | None = None
    tool_calls_limit: int | None = None
    count_tokens_before_request: bool = True
    count_tokens: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if self.count_tokens is not None and not callable(self.count_tokens):
            raise ValueError(
                "UsageLimits.count_tokens must be a callable (model, context, options) or None;"
                f" got {type(self.count_tokens).__name__}"
            )
        for item in fields(self):
            if item.name in ("count_tokens_before_request", "count_tokens"):
                continue
            value = getattr(self, item.name)
            if value is None:
                continue
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not value > 0 or value == float("inf"):  # NaN > 0 is False
                raise ValueError(
                    f"UsageLimits.{item.name} must be a positive number or None (no limit);"
                    f" got {value!r}"
                )
            if item.name != "cost_limit_usd" and not isinstance(value, int):
                raise ValueError(f"UsageLimits.{item.name} must be an int; got {value!r}")

    @property
    def limits_input(self) -> bool:
        """Whether an input or total token limit is set (the request estimate matters)."""
        return self.input_tokens_limit is not None or self.total_tokens_limit is not None

    def before_request(
        self, used: RunUsage, estimated_input: int = 0
    ) -> tuple[str, float, float] | None:
        """The limit the next request would pass, as ``(name, max, used)``, or ``None``.

        ``estimated_input``: the request's input tokens (estimate or exact count).
        """
        checks = (
            ("request_limit", self.request_limit, used.requests + 1),
            ("input_tokens_limit", self.input_tokens_limit, used.input_tokens + estimated_input),
            ("total_tokens_limit", self.total_tokens_limit, used.total_tokens + estimated_input),
            ("output_tokens_limit", self.output_tokens_limit, used.output_tokens),
            ("cost_limit_usd", self.cost_limit_usd, used.cost_usd),
        )
        return _first_passed(checks, reached_is_passed=("output_tokens_limit", "cost_limit_usd"))

    def after_reply(self, used: RunUsage) -> tuple[str, float, float] | None:
        """The token or cost limit the replies so far passed, as ``(name, max, used)``."""
        checks = (
            ("input_tokens_limit", self.input_tokens_limit, used.input_tokens),
            ("output_tokens_limit", self.output_tokens_limit, used.output_tokens),
            ("total_tokens_limit", self.total_tokens_limit, used.total_tokens),
            ("cost_limit_usd", self.cost_limit_usd, used.cost_usd),
        )
        return _first_passed(checks)

    def before_tools(self, used: RunUsage, calls: int) -> tuple[str, float, float] | None:
        """``("tool_calls_limit", max, used)`` if running ``calls`` more would pass it."""
        return _first_passed(
            (("tool_calls_limit", self.tool_calls_limit, used.tool_calls + calls),)
        )


def _first_passed(
    checks: tuple[tuple[str, float | None, float], ...], reached_is_passed: tuple[str, ...] = ()
) -> tuple[str, float, float] | None:
    """The first check whose count passes its limit (or reaches it, for ``reached_is_passed``).

    A run that has spent its output tokens or its budget makes no further request.
    """
    for name, limit, count in checks:
        if limit is None:
            continue
        if count > limit or (name in reached_is_passed and count >= limit):
            return name, limit, count
    return None
