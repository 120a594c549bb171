"""The shortest value scrubbed as a secret (``pi_sdk_pytest/scrub.py``): 8 characters, the same
bound for every source a credential comes from. A value of 8 characters is a secret; one of 7 is
left alone (it would match ordinary text in a body).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_sdk_pytest.scrub import known_credentials, split_credential, strip_userinfo

EIGHT, SEVEN = "abcd1234", "abcd123"


@pytest.mark.parametrize(
    ("uri", "removed"),
    [
        (f"https://{EIGHT}:{SEVEN}@h.example/v1", {EIGHT}),  # the user alone is long enough
        (f"https://{SEVEN}:{EIGHT}@h.example/v1", {EIGHT}),  # the password alone
        (f"https://{EIGHT}:{EIGHT}x@h.example/v1", {EIGHT, EIGHT + "x"}),
        (f"https://{SEVEN}:{SEVEN}@h.example/v1", set()),
        (f"https://{EIGHT}@h.example/v1", {EIGHT}),  # a user without a password
    ],
)
def test_userinfo_values_of_eight_characters_are_secrets(uri: str, removed: set[str]) -> None:
    assert strip_userinfo(uri) == ("https://h.example/v1", removed)


def _environment(tmp_path: Path, value: str) -> dict[str, str]:
    """Every file source holding ``value`` (and the environment), nothing else."""
    (tmp_path / "creds").write_text(f"[p]\naws_access_key_id = {value}\n", encoding="utf-8")
    (tmp_path / "conf").write_text(
        f"[profile q]\naws_session_token = {value}-conf\n", encoding="utf-8"
    )
    (tmp_path / "adc.json").write_text(json.dumps({"client_secret": value + "-adc"}), "utf-8")
    return {
        "HOME": str(tmp_path),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "creds"),
        "AWS_CONFIG_FILE": str(tmp_path / "conf"),
        "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "adc.json"),
        "SERVICE_TOKEN": value.upper(),  # its own value: each source is checked alone
    }


def test_a_credential_of_eight_characters_is_known(tmp_path: Path) -> None:
    found = known_credentials(_environment(tmp_path, EIGHT))
    assert {EIGHT, EIGHT.upper(), EIGHT + "-conf", EIGHT + "-adc"} <= found


def test_a_credential_of_seven_characters_is_left_out(tmp_path: Path) -> None:
    # Each file value has a suffix that makes it long enough except the shared credentials
    # file's and the environment's, which are the seven characters alone.
    found = known_credentials(_environment(tmp_path, SEVEN))
    assert SEVEN not in found and SEVEN.upper() not in found
    assert {SEVEN + "-conf", SEVEN + "-adc"} <= found


@pytest.mark.parametrize(
    ("value", "parts"),
    [
        (f"Bearer {EIGHT}", {f"Bearer {EIGHT}", EIGHT}),
        (f"Bearer {SEVEN}", {f"Bearer {SEVEN}"}),
        (EIGHT, {EIGHT}),
        (SEVEN, set()),
    ],
)
def test_a_header_value_and_its_token_count_from_eight_characters(
    value: str, parts: set[str]
) -> None:
    assert split_credential(value) == parts
