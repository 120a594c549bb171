"""No credential may appear in any file under tests/cassettes (issue 2).

Scans every file for API-key shapes (Anthropic, OpenAI, Google), bearer tokens, auth header
values and ``key=`` query parameters. Placeholders such as ``REDACTED`` or ``dummy`` pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes"

KEY_PATTERNS = {
    "Anthropic key": re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    "OpenAI-style key": re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"),
    "Google API key": re.compile(r"AIza[0-9A-Za-z_\-]{20,}"),
    "Google OAuth token": re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"),
    "bearer token": re.compile(r"(?i)\bbearer\s+(?!redacted\b|dummy\b|<)[A-Za-z0-9._~+/=\-]{8,}"),
    "key query parameter": re.compile(r"(?i)[?&](?:api_?)?key=(?!redacted\b|dummy\b)[^&\s'\"]{8,}"),
}
AUTH_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie", "set-cookie")
# A header line in a YAML cassette (``x-api-key:`` then ``- value``) or a JSON one.
AUTH_HEADER_YAML = re.compile(
    r"(?im)^\s*['\"]?(" + "|".join(map(re.escape, AUTH_HEADERS)) + r")['\"]?:\s*\n\s*-\s*(\S.*)$"
)
AUTH_HEADER_INLINE = re.compile(
    r"(?i)['\"](" + "|".join(map(re.escape, AUTH_HEADERS)) + r")['\"]\s*:\s*\[?\s*['\"]([^'\"]+)"
)
PLACEHOLDERS = {"redacted", "dummy", "<redacted>", "xxx", "***", "test-key", "replay-dummy-key"}


def find_secrets(text: str) -> list[str]:
    """Every credential-looking string in ``text``, described."""
    found = [
        f"{name}: {m.group(0)[:12]}…" for name, p in KEY_PATTERNS.items() for m in p.finditer(text)
    ]
    for pattern in (AUTH_HEADER_YAML, AUTH_HEADER_INLINE):
        for m in pattern.finditer(text):
            value = m.group(2).strip().strip("'\"").lower()
            if value not in PLACEHOLDERS:
                found.append(f"{m.group(1)} header with a value")
    return found


def cassette_files() -> list[Path]:
    return sorted(p for p in CASSETTES.rglob("*") if p.is_file())


def test_cassettes_exist():
    assert cassette_files(), f"no files under {CASSETTES}"


@pytest.mark.parametrize("path", cassette_files(), ids=lambda p: str(p.relative_to(CASSETTES)))
def test_cassette_has_no_credentials(path: Path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "leak",
    [
        "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz012345",
        "sk-proj-" + "abcdefghijklmnopqrstuvwx",
        "sk-" + "abcdefghijklmnopqrstuvwxyz",
        "AIza" + "SyA1234567890abcdefghijklmnopqrs",
        "ya29." + "a0AfH6SMBabcdefghijklmnopqrstu",
        "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9.abc",
        "uri: https://x.googleapis.com/v1/m:generate?key=" + "abcdefgh12345678",
        "    x-api-key:\n    - " + "live-value-123",
        '{"authorization": ["' + 'Basic dXNlcjpwYXNz"]}',
        "      x-goog-api-key:\n      - " + "something",
    ],
)
def test_scanner_catches_each_kind_of_leak(leak: str):
    assert find_secrets(leak), leak


@pytest.mark.parametrize(
    "fine",
    [
        "uri: https://x.googleapis.com/v1/m:generate?key=REDACTED",
        "    x-api-key:\n    - REDACTED",
        '"signature":"zNUBqpJWKoVKr3xsL+hPDqtmrYljsmR11MQFFS3gBLSKIThpR/E9VFAA20Z6wds02m"',
        'data: {"text": "ask-me anything"}',
    ],
)
def test_scanner_passes_placeholders_and_ordinary_text(fine: str):
    assert find_secrets(fine) == []
