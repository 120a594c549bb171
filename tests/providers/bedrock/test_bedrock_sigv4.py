"""pi-sdk-bedrock's SigV4 signer against botocore's (``pi_sdk_bedrock._sigv4``).

The signer keeps what depends only on the URL and the signing key between requests; its headers
must be botocore's ``SigV4Auth`` headers, in the same order, for every URL, header set and
credential shape, and a kept key must give way when the secret, the day or the region changes.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
from typing import Any

import botocore.auth
import pytest
from botocore.credentials import Credentials
from pi_sdk_bedrock import _sigv4
from pi_sdk_bedrock._client import BedrockClient
from pi_sdk_bedrock._sigv4 import Signer, botocore_sigv4

STAMP = "20261206T163143Z"
BASE = "https://bedrock-runtime.us-east-1.amazonaws.com"
MODEL_PATH = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
ARN_PATH = "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fus.x/converse-stream"
URLS = [
    BASE + MODEL_PATH,
    BASE + ARN_PATH,
    "https://vpce-1.bedrock-runtime.example.com:8443/proxy/./x/../" + MODEL_PATH.lstrip("/"),
    "http://127.0.0.1:80" + MODEL_PATH,
    "http://LocalHost:9000/p" + MODEL_PATH + "?b=2&a=1&a=0",
    "https://[::1]:8443" + MODEL_PATH,
]
HEADERS = [
    {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"},
    {
        "content-type": "application/json",
        "accept": "application/json",
        "x-custom": "  spaced   out\tvalue ",
        "user-agent": "not signed",
        "traceparent": "00-1-2-01",
    },
]
SPECIAL = ["authorization", "date", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"]


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both signers sign at ``STAMP``."""
    moment = datetime.datetime.strptime(STAMP, "%Y%m%dT%H%M%SZ")
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: moment)
    monkeypatch.setattr(_sigv4, "_timestamp", lambda: STAMP)


def _frozen(secret: str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token: str | None = None):
    return Credentials("AKIDEXAMPLE", secret, token).get_frozen_credentials()


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("headers", HEADERS)
@pytest.mark.parametrize("token", [None, "session-token"])
@pytest.mark.parametrize("body", [b'{"messages": []}', b""])
def test_headers_are_botocores(url: str, headers: dict[str, str], token: str | None, body: bytes):
    frozen = _frozen(token=token)
    want = botocore_sigv4(frozen, "bedrock", "eu-west-3", url, body, headers)
    signer = Signer("bedrock")
    for _ in range(2):  # the second time from what the signer kept
        got = signer.headers(frozen, "eu-west-3", url, body, headers)
        assert got == want
        assert list(got) == list(want)
    assert list(got) == [
        "x-amz-date",
        *(["x-amz-security-token"] if token else []),
        "authorization",
    ]


@pytest.mark.parametrize("name", SPECIAL)
def test_headers_botocore_treats_specially_go_to_botocore(name: str):
    headers = {"content-type": "application/json", name: "20200101T000000Z"}
    frozen = _frozen(token="t")
    want = botocore_sigv4(frozen, "bedrock", "us-east-1", URLS[0], b"{}", headers)
    assert Signer("bedrock").headers(frozen, "us-east-1", URLS[0], b"{}", headers) == want


def _key(secret: str, day: str, region: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (day, region, "bedrock", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def test_kept_signing_key_follows_secret_day_and_region():
    signer = Signer("bedrock")
    first = signer.signing_key("s1", "20261206", "us-east-1")
    assert first == _key("s1", "20261206", "us-east-1")
    assert signer.signing_key("s1", "20261206", "us-east-1") is first  # kept
    assert signer.signing_key("s2", "20261206", "us-east-1") == _key("s2", "20261206", "us-east-1")
    assert signer.signing_key("s2", "20261207", "us-east-1") == _key("s2", "20261207", "us-east-1")
    assert signer.signing_key("s2", "20261207", "eu-west-1") == _key("s2", "20261207", "eu-west-1")
    assert signer.signing_key("s1", "20261206", "us-east-1") == first


def test_signatures_follow_refreshed_credentials_a_new_day_and_a_changed_region(
    monkeypatch: pytest.MonkeyPatch,
):
    signer = Signer("bedrock")
    url, headers, body = URLS[0], HEADERS[0], b"{}"

    def both(frozen: Any, region: str) -> None:
        want = botocore_sigv4(frozen, "bedrock", region, url, body, headers)
        assert signer.headers(frozen, region, url, body, headers) == want

    both(_frozen("old-secret"), "us-east-1")
    both(_frozen("new-secret", "new-token"), "us-east-1")  # credentials refreshed
    both(_frozen("new-secret", "new-token"), "eu-central-1")  # the client's region changed
    later = "20261207T000001Z"
    moment = datetime.datetime.strptime(later, "%Y%m%dT%H%M%SZ")
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: moment)
    monkeypatch.setattr(_sigv4, "_timestamp", lambda: later)
    both(_frozen("new-secret", "new-token"), "eu-central-1")  # the date turned


async def test_client_signs_with_its_current_region_and_credentials():
    client = BedrockClient(None, region="us-west-2", credentials=Credentials("AKIDEXAMPLE", "one"))
    url, headers = BASE + MODEL_PATH, dict(HEADERS[0])
    first = await client.auth_headers(url, b"{}", headers)
    assert first == botocore_sigv4(_frozen("one"), "bedrock", "us-west-2", url, b"{}", headers)
    client.region = "ap-south-1"
    second = await client.auth_headers(url, b"{}", headers)
    assert "/ap-south-1/bedrock/" in second["authorization"]
    assert second == botocore_sigv4(_frozen("one"), "bedrock", "ap-south-1", url, b"{}", headers)
