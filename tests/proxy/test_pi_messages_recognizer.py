"""The replay recognizer of the ``pi-messages`` client (``pi_sdk/_serve/pi_messages_client.py``):
which recorded requests are pi-messages calls, and the model it names (the base URL is the
request's URL less ``/messages`` and its query).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.strings import built

from pi_sdk._serve.pi_messages_client import PI_MESSAGES, recognize

BODY = {"model": "claude-echo", "context": {"messages": []}, "options": {}}


def test_a_pi_messages_request_names_its_model_and_base_url():
    method = built("POST")  # read from the recorded cassette
    model = recognize(method, "https://gw.example/api/v1/messages?beta=1", BODY)
    assert model is not None
    assert (model.id, model.api, model.provider, model.base_url) == (
        "claude-echo",
        "pi-messages",
        "pi-messages",
        "https://gw.example/api/v1",
    )
    assert PI_MESSAGES.recognize is recognize


@pytest.mark.parametrize(
    ("method", "uri", "body"),
    [
        ("GET", "https://gw.example/messages", BODY),
        ("POST", "https://gw.example/messages/count", BODY),
        ("POST", "https://gw.example/chat", BODY),
        ("POST", "https://gw.example/messages", [BODY]),
        ("POST", "https://gw.example/messages", {**BODY, "model": 7}),
        ("POST", "https://gw.example/messages", {"model": "m"}),
        ("POST", "https://gw.example/messages", {**BODY, "context": []}),
    ],
)
def test_anything_else_is_not_a_pi_messages_request(method: str, uri: str, body: Any):
    assert recognize(method, uri, body) is None
