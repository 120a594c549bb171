"""How the cached Bedrock client authenticates, per auth mode, through ``client_lease``.

The module doc of :mod:`pi_sdk_bedrock._client`: with no API key, the credentials of
botocore's chain (``Session().get_credentials()``) sign each request with SigV4; an API key
(``StreamOptions.api_key`` / ``AWS_BEARER_TOKEN_BEDROCK``) is sent as ``Authorization: Bearer``
and the credential chain is never asked; with ``AWS_BEDROCK_SKIP_AUTH=1`` nothing is sent. Here
botocore's ``Session`` is replaced by a recording one, so the test sees which sessions were
made and whether their credentials were asked for.
"""

from __future__ import annotations

import itertools
from typing import Any

import botocore.session
import pytest
from botocore.credentials import Credentials
from pi_sdk_bedrock import _client
from pi_sdk_bedrock._client import SKIP_AUTH_ENV, TOKEN_ENV, client_lease

import pi_sdk
from pi_sdk import StreamOptions
from pi_sdk.provider import ProviderError

ACCESS_KEY = "AKIDCLIENTLEASE01"
SECRET_KEY = "client-lease-secret-key-0123456789abcdef"
BODY = b'{"messages": []}'
_hosts = itertools.count()


class RecordingSession:
    """A ``botocore.session.Session`` stand-in that records what is asked of it."""

    made: list[RecordingSession] = []
    credentials: Any = None
    fail_credentials = False

    def __init__(self, profile: str | None = None) -> None:
        self.profile = profile
        self.asked: list[str] = []
        RecordingSession.made.append(self)

    def get_credentials(self) -> Any:
        self.asked.append("credentials")
        if RecordingSession.fail_credentials:
            raise AssertionError("the credential chain was asked in a mode that does not sign")
        return RecordingSession.credentials

    def get_config_variable(self, name: str) -> Any:
        self.asked.append(name)
        return "eu-west-3" if name == "region" and self.profile else None


@pytest.fixture(autouse=True)
def recording_session(monkeypatch: pytest.MonkeyPatch) -> type[RecordingSession]:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", SKIP_AUTH_ENV, TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(botocore.session, "Session", RecordingSession)
    RecordingSession.made = []
    RecordingSession.credentials = Credentials(ACCESS_KEY, SECRET_KEY, "session-token-1")
    RecordingSession.fail_credentials = False
    return RecordingSession


def _model() -> pi_sdk.Model:
    # A host of its own per call: no client cached by another test is reused.
    model = pi_sdk.get_model("amazon-bedrock", "amazon.nova-micro-v1:0")
    return model.model_copy(update={"base_url": f"https://bedrock-proxy-{next(_hosts)}.example"})


async def _auth(
    token: str | None, options: StreamOptions | None = None
) -> tuple[dict[str, str], _client.BedrockClient]:
    model = _model()
    async with await client_lease(model, options or StreamOptions(), token) as client:
        url = f"{client.base_url}/model/m/converse-stream"
        headers = await client.auth_headers(url, BODY, {"content-type": "application/json"})
    return headers, client


async def test_without_a_key_the_chain_s_credentials_are_asked_once_and_sign() -> None:
    headers, client = await _auth(None, StreamOptions(provider_options={"region": "us-west-2"}))
    [session] = RecordingSession.made
    assert session.asked == ["credentials"]
    assert headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")
    assert "/us-west-2/bedrock/aws4_request" in headers["authorization"]
    assert headers["x-amz-security-token"] == "session-token-1"
    assert "x-amz-date" in headers
    assert "sigv4" in repr(client) and SECRET_KEY not in repr(client)


async def test_a_profile_s_session_is_the_one_asked() -> None:
    headers, _ = await _auth(None, StreamOptions(provider_options={"profile": "work"}))
    [session] = RecordingSession.made
    assert session.profile == "work"
    assert session.asked == ["region", "credentials"]  # the profile's region, then its keys
    assert "/eu-west-3/bedrock/aws4_request" in headers["authorization"]


async def test_no_credentials_and_no_key_is_a_clear_error() -> None:
    RecordingSession.credentials = None
    with pytest.raises(ProviderError) as raised:
        await _auth(None)
    assert "no AWS credentials found" in str(raised.value)
    assert TOKEN_ENV in str(raised.value) and "StreamOptions.api_key" in str(raised.value)


@pytest.mark.parametrize("profile", [None, "work"])
async def test_with_a_key_the_credential_chain_is_never_asked(profile: str | None) -> None:
    RecordingSession.fail_credentials = True
    options = StreamOptions(provider_options={"profile": profile} if profile else {})
    headers, client = await _auth("bedrock-api-key-1", options)
    assert headers == {"authorization": "Bearer bedrock-api-key-1"}
    assert all("credentials" not in session.asked for session in RecordingSession.made)
    # No session at all, unless a profile is named and no region set: then only its region.
    assert [s.asked for s in RecordingSession.made] == ([["region"]] if profile else [])
    assert "bearer" in repr(client) and "bedrock-api-key-1" not in repr(client)


@pytest.mark.parametrize("token", [None, "bedrock-api-key-2"])
async def test_skipping_auth_sends_nothing_and_asks_nothing(
    monkeypatch: pytest.MonkeyPatch, token: str | None
) -> None:
    monkeypatch.setenv(SKIP_AUTH_ENV, "1")
    RecordingSession.fail_credentials = True
    headers, client = await _auth(token)
    assert headers == {}  # not even a key that was given
    assert RecordingSession.made == []
    assert "none" in repr(client)


async def test_each_auth_mode_has_its_own_client() -> None:
    model = _model()
    options = StreamOptions()
    async with await client_lease(model, options, None) as signing:
        pass
    async with await client_lease(model, options, "bedrock-api-key-3") as bearer:
        pass
    async with await client_lease(model, options, None) as again:
        pass
    assert signing is again and bearer is not signing
    # Built once: one session, its region (none configured) and its credentials asked once.
    assert [s.asked for s in RecordingSession.made] == [["region", "credentials"]]
