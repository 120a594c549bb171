"""Helpers shared by the agent-core tests (scripted provider, event collection)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import pi_sdk
from pi_sdk._wire.agent_types import AgentEvent
from pi_sdk._wire.loop_config import AgentLoopConfig
from pi_sdk.plugins import PluginManager, use_plugin_manager


@pytest.fixture(autouse=True)
def isolated_plugins():
    """Installed plugins (tool policies, audit logs) must not take part in these tests."""
    with use_plugin_manager(PluginManager()) as pm:
        yield pm


def user(text: str) -> pi_sdk.UserMessage:
    return pi_sdk.UserMessage(content=[pi_sdk.TextContent(text=text)])


def text_of(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content)


def config(provider: pi_sdk.testing.ScriptedProvider, **options: Any) -> AgentLoopConfig:
    return AgentLoopConfig(model=provider.model, **options)


async def collect(stream: pi_sdk.AgentEventStream) -> list[AgentEvent]:
    """All events of a loop stream; fails instead of hanging if the stream never ends."""

    async def drain() -> list[AgentEvent]:
        return [event async for event in stream]

    return await asyncio.wait_for(drain(), timeout=10)


def kinds(events: list[AgentEvent], *, updates: bool = False) -> list[str]:
    """Event types, without message_update unless asked (their count depends on chunking)."""
    return [e.type for e in events if updates or e.type != "message_update"]


def roles(messages: Any) -> list[str]:
    return [m.role for m in messages]
