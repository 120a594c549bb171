"""``pi-sdk demo``: its failure line names every interaction that failed; a missing cassette."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_sdk import get_api_provider, register_api_provider
from pi_sdk._cli import main
from pi_sdk._cli import replay as replay_cli
from pi_sdk.provider import ApiProvider


@pytest.fixture
def broken_anthropic() -> Iterator[None]:
    """A broken installation: the Anthropic adapter fails on every call (restored after)."""

    async def broken(*args: object, **kwargs: object):
        raise RuntimeError("simulated broken install")
        yield  # pragma: no cover

    original = get_api_provider("anthropic-messages")
    register_api_provider(
        ApiProvider(api="anthropic-messages", stream=broken, recognize=original.recognize),
        replace=True,
    )
    try:
        yield
    finally:
        register_api_provider(original, replace=True)


_FAILED = (
    "pi-sdk: error: interaction(s) {} ended in an error; the demo should replay cleanly (is the"
    " installation complete?)\n"
)


@pytest.mark.parametrize("as_json", [True, False])
def test_every_failed_interaction_is_named_on_one_line_and_the_status_is_1(
    broken_anthropic: None, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    assert main(["demo", *(["--json"] if as_json else [])]) == 1
    out, err = capsys.readouterr()
    if as_json:
        indexes = sorted({json.loads(line)["interaction"] for line in out.splitlines()})
    else:
        headers = [line for line in out.splitlines() if line.startswith("━━ interaction ")]
        indexes = [int(line.split()[2]) for line in headers]
        assert "simulated broken install" in out  # each failure is shown where it happened
    assert len(indexes) >= 2
    assert err == _FAILED.format(", ".join(map(str, indexes)))


def test_a_missing_demo_cassette_is_status_2_saying_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "demo.yaml"
    monkeypatch.setattr(replay_cli, "DEMO_CASSETTE", missing)
    assert main(["demo"]) == 2
    assert capsys.readouterr() == (
        "",
        f"pi-sdk: error: demo cassette not found at {missing} (`pi-sdk demo` runs from a"
        " source checkout of pi-sdk)\n",
    )


def _interaction(text: str) -> dict[str, object]:
    answer = {
        "type": "message", "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 7, "output_tokens": 3},
    }  # fmt: skip
    return {
        "request": {
            "body": '{"model": "claude-sonnet-4-5", "stream": false}',
            "headers": {},
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
        },
        "response": {
            "body": {"string": json.dumps(answer)},
            "headers": {"content-type": ["application/json"]},
            "status": {"code": 200, "message": "OK"},
        },
    }


def _played(index: int, text: str) -> list[str]:
    return [
        f"━━ interaction {index} anthropic-messages · anthropic/claude-sonnet-4-5 · POST"
        " https://api.anthropic.com/v1/messages",
        "(the recorded answer is a whole JSON document, not a stream; its events are replayed"
        " from that document)",
        text,
        "✔ stop reason stop",
        f"  text       “{text}”",
        "  usage      input 7 · output 3 · cache read 0 · cache write 0 · total 10 tokens",
        "  cost       $0.000066  (input $0.000021, output $0.000045, cache read $0.000000, cache"
        " write $0.000000)",
    ]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_replayed_interactions_are_separated_by_one_blank_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], count: int
) -> None:
    import yaml

    monkeypatch.setenv("NO_COLOR", "1")
    texts = ["first", "second", "third"][:count]
    path = tmp_path / "c.yaml"
    cassette = {"interactions": [_interaction(t) for t in texts], "version": 1}
    path.write_text(yaml.safe_dump(cassette, allow_unicode=True), "utf-8")
    assert main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected: list[str] = []
    for index, text in enumerate(texts):
        expected += ([""] if index else []) + _played(index, text)
    assert lines == expected
