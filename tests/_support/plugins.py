"""Plugins shared by the hook tests."""

from __future__ import annotations

from typing import Any

from pi_sdk import BeforeToolCallResult, hookimpl


class ArgumentGuard:
    """Blocks every tool call whose ``argument`` contains ``needle``, giving ``reason``."""

    def __init__(self, argument: str, needle: str, reason: str) -> None:
        self.argument, self.needle, self.reason = argument, needle, reason

    @hookimpl
    def before_tool_call(self, context: Any) -> BeforeToolCallResult | None:
        if self.needle in context.tool_call.arguments[self.argument]:
            return BeforeToolCallResult(block=True, reason=self.reason)
        return None
