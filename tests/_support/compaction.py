"""Shared pieces of the pi-sdk-compaction tests: a transcript of equal turns, a summary model."""

from __future__ import annotations

import re
from typing import Any

from pi_sdk_compaction import Compactor

from pi_sdk import UserMessage
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply

WORDS = "The quarterly report lists revenue, costs and the open questions for the board. "

TURNS = [UserMessage(content=f"turn{n}: " + WORDS * 20) for n in range(6)]
"""Six user turns of about 400 estimated tokens each (the same objects in every test)."""


class SummaryWriter:
    """A scripted summary model that records each request and answers ``summary N``."""

    def __init__(self, window: int = 200_000) -> None:
        self.requests: list[str] = []
        self.provider = ScriptedProvider([self.answer] * 50)
        self.provider.model.context_window = window

    def answer(self, call: ScriptedCall) -> ScriptedReply:
        self.requests.append(call.context.messages[-1].text)
        return ScriptedReply.text(f"summary {len(self.requests)}")

    def compactor(self, **settings: Any) -> Compactor:
        """A Compactor writing its summaries with this model."""
        return Compactor(self.provider.model, stream_fn=self.provider.stream_fn, **settings)

    def conversations(self) -> list[str]:
        """The ``<conversation>`` part of each request, in order."""
        found = [
            re.search(r"<conversation>\n(.*)\n</conversation>", r, re.S) for r in self.requests
        ]
        return [m.group(1) for m in found if m is not None]
