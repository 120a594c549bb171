"""A replay miss under ``match_body=True`` names the first difference from the recorded body.

The cassette is written by hand; a real ``httpx2`` request is answered by pi-sdk's miss reply
(the message a test author reads when a request changed since it was recorded).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from pi_sdk_pytest import open_cassette
from pi_sdk_pytest.body_match import json_body_difference

URI = "http://127.0.0.1:9/v1/messages"
RECORDED: dict[str, Any] = {
    "model": "m",
    "max_tokens": 10,
    "messages": [{"role": "user", "content": "hi"}],
}


def _cassette(path: Path) -> Path:
    request = {"body": json.dumps(RECORDED), "headers": {}, "method": "POST", "uri": URI}
    response = {"body": {"string": "ok"}, "headers": {}, "status": {"code": 200, "message": "OK"}}
    interactions = [{"request": request, "response": response}]
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


@pytest.mark.parametrize(
    ("live", "named"),
    [
        ({**RECORDED, "stream": True}, "$.stream: only in the live request"),
        ({"model": "m", "messages": RECORDED["messages"]}, "$.max_tokens: only in the recording"),
        (
            {**RECORDED, "messages": [{"role": "user", "content": "hello"}]},
            '$.messages[0].content: "hello" != "hi" (live != recorded)',
        ),
        ({**RECORDED, "messages": []}, "$.messages: 0 items live, 1 recorded"),
    ],
)
def test_a_body_miss_names_the_first_difference(
    tmp_path: Path, live: dict[str, Any], named: str
) -> None:
    with open_cassette(_cassette(tmp_path / "c.yaml"), recording=False, match_body=True) as session:
        with httpx2.Client() as client:
            answer = client.post(URI, json=live)
    assert answer.status_code == 404
    expected = f"POST {URI} (body differs from recorded interaction 0: {named})"
    assert session.misses == [expected]
    assert expected in answer.json()["error"]["message"]


def test_the_recorded_body_is_played_when_it_matches(tmp_path: Path) -> None:
    with open_cassette(_cassette(tmp_path / "c.yaml"), recording=False, match_body=True) as session:
        with httpx2.Client() as client:
            answer = client.post(URI, json=dict(reversed(RECORDED.items())))  # key order is free
    assert (answer.status_code, answer.text) == (200, "ok")
    assert session.misses == []


def test_the_miss_reply_is_a_vendor_shaped_404_that_says_not_to_retry(tmp_path: Path) -> None:
    """Anthropic, OpenAI and Google SDKs read ``error.message``; ``x-should-retry: false``
    keeps a provider's retry loop from asking again."""
    path = _cassette(tmp_path / "c.yaml")
    with open_cassette(path, recording=False, match_body=False):
        with httpx2.Client(verify=False) as client:  # plain HTTP: no certificates to load
            answer = client.get("http://127.0.0.1:9/v1/models")
    assert (answer.status_code, answer.reason_phrase) == (404, "Not Found")
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-should-retry"] == "false"
    assert answer.json() == {
        "type": "error",
        "error": {
            "type": "pi_sdk_cassette_miss",
            "message": (
                f"pi-sdk replay: request not in cassette {path}: GET http://127.0.0.1:9/v1/models. "
                f"Recorded: 0. POST {URI} (not played). Record it again (--record-mode=all, or "
                "--pi-record) if the request changed on purpose."
            ),
            "code": 404,
            "status": "NOT_FOUND",
        },
    }


@pytest.mark.parametrize(
    ("live", "shown"),
    [
        ("x" * 78, '"' + "x" * 78 + '"'),  # 80 characters of JSON: shown whole
        ("x" * 79, '"' + "x" * 76 + "..."),  # 81: its first 77, then "..."
        (["é" * 36, 1234], '["' + "é" * 36 + '", 1234]'),  # 46: whole, not ASCII-escaped
    ],
)
def test_a_differing_value_is_shown_whole_up_to_80_characters(live: Any, shown: str) -> None:
    assert json_body_difference({"a": live}, {"a": 0}) == f"$.a: {shown} != 0 (live != recorded)"
