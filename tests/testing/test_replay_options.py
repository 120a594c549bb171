"""``pi_sdk._testing.replay``'s call options: by default one call plays exactly one recorded
interaction (no retry, even of a retryable answer), and options the caller gives are the ones
used, retries included.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir

import pi_sdk
from pi_sdk._testing.replay import replay_all

RATE_LIMITED = "anthropic-messages/rate_limit_429_twice_then_stream.yaml"
"""Two 429 answers (``x-should-retry: true``), then a streamed ``[12345,67890]``."""
LIMIT_TEXT = "would exceed your organization's rate limit"


def _shared(name: str) -> Path:
    try:
        root = conformance_dir()
    except ConformanceDirMissing as exc:
        pytest.fail(str(exc))
    if root is None:
        pytest.skip("conformance folder absent")
    return root / name


def _outcomes(results: list) -> list[tuple[str, str, bool]]:
    """Per call: stop reason, text, whether its error is the recorded rate limit."""
    return [
        (
            r.message.stop_reason,
            r.message.text,
            LIMIT_TEXT in (r.message.error_message or ""),
        )
        for r in results
    ]


async def test_by_default_each_call_plays_one_interaction_without_retrying_a_429():
    results = await replay_all(_shared(RATE_LIMITED))
    assert _outcomes(results) == [
        ("error", "", True),
        ("error", "", True),
        ("stop", "[12345,67890]", False),
    ]
    assert [r.interaction.index for r in results] == [0, 1, 2]
    assert [r.events[-1].type for r in results] == ["error", "error", "done"]


async def test_options_given_are_used_and_a_call_with_retries_consumes_the_next_answers():
    options = pi_sdk.StreamOptions(api_key="k", max_retries=2, max_retry_delay_ms=1)
    results = await replay_all(_shared(RATE_LIMITED), options=options)
    # The first call retries through both 429s and gets the stream; the cassette then has no
    # answer left for the two later calls.
    assert [(o[0], o[1]) for o in _outcomes(results)] == [
        ("stop", "[12345,67890]"),
        ("error", ""),
        ("error", ""),
    ]
    assert [o[2] for o in _outcomes(results)] == [False, False, False]
