"""Calling the run-level hooks of pi-agent-core 1.6.

``prepare_request``, ``prepare_next_turn``, ``finish_turn`` and the deprecated
``should_stop_after_turn``.

The loop (:mod:`pi_sdk._agent.loop`) calls these at its decision points; the types and their
contracts are in :mod:`pi_sdk._wire.loop_config`. An update's fields that are not ``None``
replace the run's context, model or thinking level for the rest of the run (pi-agent-core 1.6:
a level of ``"off"`` is no reasoning).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pi_sdk._agent.tool_calls import resolve
from pi_sdk._plugins.calling import call_hook_implementation, hook_implementations
from pi_sdk._wire.loop_config import (
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentRequestUpdate,
    AgentTurnContext,
    AgentTurnDecision,
    PrepareRequestContext,
)

if TYPE_CHECKING:
    from pi_sdk._wire.abort import AbortSignal
    from pi_sdk._wire.agent_types import AgentContext, AgentMessage

__all__ = [
    "apply_update",
    "ask_finish_turn",
    "ask_prepare_next_turn",
    "ask_prepare_request",
    "has_turn_hooks",
]


def has_turn_hooks(config: AgentLoopConfig) -> bool:
    """Whether a turn must be shown to a hook (a callable, or a ``finish_turn`` plugin)."""
    if config.finish_turn or config.should_stop_after_turn or config.prepare_next_turn:
        return True
    return bool(hook_implementations("finish_turn"))


def apply_update(
    config: AgentLoopConfig, context: AgentContext, update: object
) -> tuple[AgentLoopConfig, AgentContext]:
    """The run's config and context with ``update`` laid on them (``None`` fields keep theirs).

    Raises:
        TypeError: ``update`` is not an :class:`AgentRequestUpdate` / :class:`AgentLoopTurnUpdate`.
    """
    if not isinstance(update, AgentRequestUpdate | AgentLoopTurnUpdate):
        raise TypeError(
            f"expected AgentRequestUpdate, AgentLoopTurnUpdate or None; got {type(update).__name__}"
        )
    changes: dict[str, Any] = {}
    if update.model is not None:
        changes["model"] = update.model
    if update.thinking_level is not None:
        changes["reasoning"] = None if update.thinking_level == "off" else update.thinking_level
    if changes:
        config = dataclasses.replace(config, **changes)
    return config, update.context if update.context is not None else context


async def ask_prepare_request(
    config: AgentLoopConfig, context: AgentContext, signal: AbortSignal
) -> tuple[AgentLoopConfig, AgentContext]:
    """``config.prepare_request``, then each ``prepare_request`` plugin, before a request.

    Each update is laid on the state the previous ones left, and the next hook sees it.

    Returns:
        The config and context to make the request with.

    Raises:
        Whatever a hook raises (a plugin's error names it): the run ends with an error message.
    """
    hooks: list[Any] = [] if config.prepare_request is None else [config.prepare_request]
    hooks.extend(hook_implementations("prepare_request"))
    for hook in hooks:
        request = PrepareRequestContext(
            context=context, model=config.model, thinking_level=config.reasoning or "off"
        )
        if callable(hook):
            update = await resolve(hook(request, signal))
        else:
            update = await call_hook_implementation(hook, request=request, signal=signal)
        if update is not None:
            config, context = apply_update(config, context, update)
    return config, context


async def ask_prepare_next_turn(
    config: AgentLoopConfig, context: AgentContext, turn: AgentTurnContext
) -> tuple[AgentLoopConfig, AgentContext, list[AgentMessage]]:
    """``config.prepare_next_turn`` between turns: config, context and messages to add."""
    assert config.prepare_next_turn is not None
    update = await resolve(config.prepare_next_turn(turn))
    if update is None:
        return config, context, []
    config, context = apply_update(config, context, update)
    messages = getattr(update, "messages", None)  # an AgentRequestUpdate has none
    return config, context, list(messages or ())


async def ask_finish_turn(
    config: AgentLoopConfig, turn: AgentTurnContext, signal: AbortSignal
) -> AgentTurnDecision | None:
    """``config.finish_turn``, then the deprecated ``should_stop_after_turn`` (true: ``"end"``).

    A failed turn (``error``/``aborted``) is shown to ``finish_turn`` only, and its answer does
    not matter: the run ends there (pi-agent-core 1.6).

    Raises:
        ValueError: ``finish_turn`` answered something other than ``"continue"``, ``"end"``,
            ``None``. Whatever a hook raises (a plugin's error names it).
    """
    decision: AgentTurnDecision | None = None
    if config.finish_turn is not None:
        decision = _checked(await resolve(config.finish_turn(turn, signal)))
    if decision != "end":  # the plugins: any "end" wins
        for impl in hook_implementations("finish_turn"):
            answer = _checked(await call_hook_implementation(impl, turn=turn, signal=signal))
            if answer is not None:
                decision = answer
            if decision == "end":
                break
    failed = turn.message.stop_reason in ("error", "aborted")
    if decision is None and not failed and config.should_stop_after_turn is not None:
        if await resolve(config.should_stop_after_turn(turn)):
            decision = "end"
    return decision


def _checked(decision: object) -> AgentTurnDecision | None:
    if decision is None or decision == "continue" or decision == "end":
        return decision  # pyright: ignore[reportReturnType]
    raise ValueError(f"finish_turn must answer 'continue', 'end' or None; got {decision!r}")
