"""Recorded cassettes keep no secret, by rule (issue 31, item 8; issue 34's custom names).

Each case records one real request to a loopback server that echoes the request's headers and
body in its reply (vendors echo keys in error messages), then reads the cassette file: the
secret must appear nowhere in it, neither where it was sent nor where it was echoed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from _support.loopback import LoopbackServer, json_step
from pi_sdk_pytest.cassette import open_cassette
from pi_sdk_pytest.scrub import PLACEHOLDER, known_credentials, strip_userinfo


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credential of this machine's: a home of the test's own, no secret-looking variable."""
    for name in list(os.environ):
        if name.upper().endswith(("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")) or name.startswith(
            ("AWS_", "GOOGLE_")
        ):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))


def _echo(method: str, target: str, headers: dict[str, str], body: bytes) -> Any:
    return json_step(200, {"target": target, "headers": headers, "body": body.decode()})


async def _record(
    tmp_path: Path,
    *,
    headers: dict[str, str] | None = None,
    body: str = "{}",
    userinfo: str = "",
    query: str = "",
    **options: Any,
) -> str:
    """Record one POST and return the cassette file's text."""
    path = tmp_path / "cassette.yaml"
    async with LoopbackServer([], route=_echo) as server:
        url = server.url.replace("://", f"://{userinfo}@" if userinfo else "://")
        with open_cassette(path, recording=True, **options) as session:
            async with httpx2.AsyncClient(trust_env=False) as client:
                response = await client.post(
                    f"{url}/v1/messages{query}", headers=headers or {}, content=body
                )
                assert response.status_code == 200
        assert session.recording
    return path.read_text(encoding="utf-8")


def _request_headers(text: str) -> set[str]:
    [interaction] = yaml.safe_load(text)["interactions"]
    return {name.lower() for name in interaction["request"]["headers"]}


async def test_bedrock_session_token_from_the_credentials_file(tmp_path: Path) -> None:
    # The keys come from the shared credentials file, not from the environment.
    credentials = tmp_path / "home" / ".aws" / "credentials"
    credentials.parent.mkdir(parents=True)
    token, secret = "FwoGZXIvYXdzEFAKE-session-token-0123456789", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY"
    credentials.write_text(
        f"[default]\naws_access_key_id = AKIAFAKEFAKEFAKE1234\n"
        f"aws_secret_access_key = {secret}\naws_session_token = {token}\n"
    )
    text = await _record(
        tmp_path,
        headers={"x-amz-security-token": token, "x-amz-date": "20261205T000000Z"},
        body=json.dumps({"note": f"signed with {secret}"}),  # a body that holds the secret
    )
    assert token not in text and secret not in text
    assert "x-amz-security-token" not in _request_headers(text)
    assert "x-amz-date" in _request_headers(text)  # not a credential: kept
    assert PLACEHOLDER in text


@pytest.mark.parametrize(
    "header", ["x-custom-auth", "cf-aig-authorization", "helicone-auth", "x-portkey-api-key"]
)
async def test_auth_looking_header_names_are_removed_and_their_values_scrubbed(
    tmp_path: Path, header: str
) -> None:
    value = "gw-credential-value-9f8e7d6c5b4a"
    text = await _record(tmp_path, headers={header: f"Bearer {value}", "x-trace": "trace-1"})
    assert value not in text
    assert header not in _request_headers(text)
    assert "x-trace" in _request_headers(text)


async def test_a_password_in_the_base_url_is_not_kept(tmp_path: Path) -> None:
    text = await _record(tmp_path, userinfo="alice-user:PASSWORD-in-url-12345")
    assert "PASSWORD-in-url-12345" not in text and "alice-user" not in text
    [interaction] = yaml.safe_load(text)["interactions"]
    assert interaction["request"]["uri"].startswith("http://127.0.0.1:")


async def test_credential_query_parameters_are_removed(tmp_path: Path) -> None:
    token = "IQoJb3JpZ2luX2VjEFAKE-presigned-token"
    text = await _record(
        tmp_path, query=f"?alt=sse&X-Amz-Security-Token={token}&X-Amz-Signature=abcdef0123456789"
    )
    assert token not in text and "abcdef0123456789" not in text
    [interaction] = yaml.safe_load(text)["interactions"]
    assert interaction["request"]["uri"].endswith("/v1/messages?alt=sse")


async def test_caller_configured_secret_names_and_values(tmp_path: Path) -> None:
    """Names and values no default rule catches: only the caller's configuration scrubs them."""
    ticket, fixture_value = "ticket-5f4e3d2c1b0a99", "made-by-a-fixture-7777"
    headers = {"x-gateway-ticket": ticket, "x-route": "eu"}
    body = json.dumps({"user": fixture_value})
    unconfigured = await _record(tmp_path, headers=headers, body=body)
    assert ticket in unconfigured and fixture_value in unconfigured  # the defaults keep them

    text = await _record(
        tmp_path,
        headers=headers,
        body=body,
        secret_headers=["X-Gateway-Ticket"],
        secrets=[fixture_value],
    )
    assert ticket not in text and fixture_value not in text
    assert "x-gateway-ticket" not in _request_headers(text)
    assert "x-route" in _request_headers(text)


async def test_keys_from_the_pi_sdk_key_store_and_google_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "home" / ".config" / "pi-sdk" / "keys.json"
    store.parent.mkdir(parents=True)
    store.write_text(json.dumps({"anthropic": "sk-ant-from-the-key-store-0001"}))
    adc = tmp_path / "adc.json"
    adc.write_text(json.dumps({"type": "authorized_user", "refresh_token": "1//refresh-0002"}))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    body = json.dumps({"a": "sk-ant-from-the-key-store-0001", "b": "1//refresh-0002"})
    text = await _record(tmp_path, headers={"x-note": "plain"}, body=body)
    assert "sk-ant-from-the-key-store-0001" not in text and "1//refresh-0002" not in text


def test_known_credentials_reads_each_source(tmp_path: Path) -> None:
    (tmp_path / "creds").write_text("[p]\naws_session_token = tok-from-file-123\nregion = x\n")
    (tmp_path / "conf").write_text("[profile q]\naws_secret_access_key = secret-from-conf-1\n")
    env = {
        "HOME": str(tmp_path),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "creds"),
        "AWS_CONFIG_FILE": str(tmp_path / "conf"),
        "MY_SERVICE_TOKEN": "env-token-12345678",
        "SHORT_TOKEN": "short",
    }
    assert known_credentials(env) >= {
        "tok-from-file-123",
        "secret-from-conf-1",
        "env-token-12345678",
    }
    assert "short" not in known_credentials(env) and "x" not in known_credentials(env)


def test_strip_userinfo() -> None:
    assert strip_userinfo("https://u:p@host:8/v1?a=1") == ("https://host:8/v1?a=1", set())
    assert strip_userinfo("https://user-name1:password-2@h/") == (
        "https://h/",
        {"user-name1", "password-2"},
    )
    assert strip_userinfo("https://h/v1") == ("https://h/v1", set())


async def test_a_secret_in_a_header_kept_by_name_is_scrubbed_in_its_value(tmp_path: Path) -> None:
    """A header whose name says nothing (kept) still loses a known secret in its value."""
    secret = "fixture-made-secret-3c2b1a"
    headers = {"x-forwarded-note": f"from {secret}", "x-route": "eu"}
    text = await _record(tmp_path, headers=headers, secrets=[secret])
    assert secret not in text
    [interaction] = yaml.safe_load(text)["interactions"]
    kept = {k.lower(): v for k, v in interaction["request"]["headers"].items()}
    assert kept["x-forwarded-note"] == [f"from {PLACEHOLDER}"]
    assert kept["x-route"] == ["eu"]


async def test_the_responses_own_headers_are_recorded_and_its_cookies_are_not(
    tmp_path: Path,
) -> None:
    """Scrubbing takes the secret response headers out and keeps every other one as sent."""

    def answer(method: str, target: str, headers: dict[str, str], body: bytes) -> Any:
        return json_step(200, {"ok": True}, {"set-cookie": "session=s3cr3t-cookie", "x-id": "r1"})

    path = tmp_path / "cassette.yaml"
    async with LoopbackServer([], route=answer) as server:
        with open_cassette(path, recording=True):
            async with httpx2.AsyncClient(trust_env=False) as client:
                live = await client.post(f"{server.url}/v1/messages", content="{}")
    [interaction] = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]
    recorded = {name.lower(): value for name, value in interaction["response"]["headers"].items()}
    sent = {name: [value] for name, value in live.headers.items() if name != "set-cookie"}
    assert recorded == sent and recorded["x-id"] == ["r1"]
