"""Bedrock fallbacks shown one source at a time: the AWS profile, and the role of a whole
Converse response read as stream events."""

from __future__ import annotations

import pytest
from pi_sdk_bedrock._client import _profile  # pyright: ignore[reportPrivateUsage]
from pi_sdk_bedrock.converse._response_events import response_as_events

from pi_sdk import StreamOptions


@pytest.mark.parametrize(
    ("option", "environment", "profile"),
    [
        ("from-options", "from-env", "from-options"),
        (None, "from-env", "from-env"),  # AWS_PROFILE alone
        ("from-options", None, "from-options"),
        (None, None, None),
        ("", "", None),
    ],
)
def test_the_profile_comes_from_the_options_then_aws_profile(
    monkeypatch: pytest.MonkeyPatch,
    option: str | None,
    environment: str | None,
    profile: str | None,
) -> None:
    if environment is None:
        monkeypatch.delenv("AWS_PROFILE", raising=False)
    else:
        monkeypatch.setenv("AWS_PROFILE", environment)
    options = StreamOptions(provider_options={} if option is None else {"profile": option})
    assert _profile(options) == profile


@pytest.mark.parametrize(("role", "start"), [(None, "assistant"), ("assistant", "assistant")])
def test_a_whole_response_starts_as_the_assistants_message(role: str | None, start: str) -> None:
    message = {"content": []} if role is None else {"role": role, "content": []}
    events = list(response_as_events({"output": {"message": message}, "stopReason": "end_turn"}))
    assert events[0] == ("messageStart", {"role": start})
