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

__all__ = ["apply_update", "ask_finish_turn", "ask_prepare_next_turn", "ask_prepare_request"]


def apply_update(
    config: AgentLoopConfig, context: AgentContext, update: AgentRequestUpdate | AgentLoopTurnUpdate
) -> tuple[AgentLoopConfig, AgentContext]:
    """The run's config and context with ``update`` laid on them (``None`` fields keep theirs).

    Raises:
        TypeError: ``update`` is not an :class:`AgentRequestUpdate` / :class:`AgentLoopTurnUpdate`.
    """
    if not isinstance(update, AgentRequestUpdate | AgentLoopTurnUpdate):  # pyright: ignore[reportUnnecessaryIsInstance] - user code
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
    """``config.prepare_request`` before a request; the config and context to make it with."""
    hook = config.prepare_request
    if hook is None:
        return config, context
    request = PrepareRequestContext(
        context=context, model=config.model, thinking_level=config.reasoning or "off"
    )
    update = await resolve(hook(request, signal))
    if update is None:
        return config, context
    return apply_update(config, context, update)


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
            ``None``.
    """
    decision: AgentTurnDecision | None = None
    if config.finish_turn is not None:
        decision = await resolve(config.finish_turn(turn, signal))
        if decision not in (None, "continue", "end"):
            raise ValueError(f"finish_turn must answer 'continue', 'end' or None; got {decision!r}")
    failed = turn.message.stop_reason in ("error", "aborted")
    if decision is None and not failed and config.should_stop_after_turn is not None:
        if await resolve(config.should_stop_after_turn(turn)):
            decision = "end"
    return decision
