"""``pi_sdk._testing.replay``: its call options (by default one call plays exactly one recorded
interaction, no retry even of a retryable answer; options the caller gives are the ones used,
retries included) and two edges of reading a cassette (a YAML error's first line, a header
recorded with several values).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir

import pi_sdk
from pi_sdk._testing.replay import load_cassette, replay_all

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


def _cassette(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_syntax_error_is_reported_by_its_first_line_only(tmp_path: Path):
    path = _cassette(tmp_path, "interactions: [\n  - a: b\n c")
    with pytest.raises(pi_sdk.ConfigurationError) as caught:
        load_cassette(path)
    assert str(caught.value) == f"not a vcrpy cassette: {path} (while parsing a flow node)"


@pytest.mark.parametrize(
    ("values", "content_type"),
    [
        (["Text/Event-Stream", "application/json"], "text/event-stream"),  # the first counts
        (["application/json", "text/event-stream"], "application/json"),
        (["application/json"], "application/json"),
    ],
)
def test_a_header_recorded_with_several_values_reads_as_its_first(
    tmp_path: Path, values: list[str], content_type: str
):
    interaction = {
        "request": {"body": None, "headers": {}, "method": "POST", "uri": "https://a.example/v1"},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": values},
            "body": {"string": "{}"},
        },
    }
    text = json.dumps({"interactions": [interaction], "version": 1})
    [item] = load_cassette(_cassette(tmp_path, text, "c.json"))
    assert item.content_type == content_type
    assert item.streamed is (content_type == "text/event-stream")
