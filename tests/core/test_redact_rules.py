"""Redaction, rule by rule (issue 34): every default key, suffix, pattern and env name a row.

:mod:`pi_sdk._wire.redact` lists its rules (secret key names, the suffix rule, the credential
patterns, the environment-variable names, the 8-character value floor). Each row below is one
of them, with the near miss beside it that must stay untouched, so a rule dropped, widened or
narrowed by one character shows.
"""

from __future__ import annotations

import pytest

from pi_sdk._wire.redact import (
    DEFAULT_SECRET_KEYS,
    MIN_SECRET_LENGTH,
    REDACTED,
    Redactor,
    exception_text,
    is_credential_name,
    redact_text,
    secret_header_values,
)

PLAIN = Redactor(environment_values=False)


@pytest.mark.parametrize("key", sorted(DEFAULT_SECRET_KEYS))
def test_every_default_secret_key_is_redacted_in_any_spelling(key: str) -> None:
    spelled = key.upper().replace("_", "-")
    assert PLAIN.redact({spelled: "v", "note": "v"}) == {spelled: REDACTED, "note": "v"}
    assert Redactor(default_keys=False, environment_values=False).is_secret_key(key) is False


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("github_token", True),
        ("openai_api_key", True),
        ("openai_apikey", True),
        ("client-secret", True),
        ("db_password", True),
        ("signing_private_key", True),
        ("signing_privatekey", True),
        ("token", True),
        ("tokens", False),
        ("tokenizer", False),
        ("max_tokens", False),
        ("secretary", False),
        ("mytoken", False),  # the suffix rule wants a word boundary (``_``)
        ("password_hint", False),
        ("api_key_id", False),
        ("model", False),
    ],
)
def test_the_suffix_rule_catches_whole_trailing_words_only(key: str, secret: bool) -> None:
    assert PLAIN.is_secret_key(key) is secret
    assert PLAIN.redact({key: "value"}) == {key: REDACTED if secret else "value"}


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("k sk-" + "a" * 16 + " e", f"k {REDACTED} e"),
        ("sk-" + "a" * 15, "sk-" + "a" * 15),  # too short to be a key
        ("sk-ant-" + "b" * 20, REDACTED),
        ("sk-proj-" + "c" * 20, REDACTED),
        ("sk-svcacct-" + "d" * 20, REDACTED),
        ("AIza" + "e" * 35, REDACTED),
        ("AIza" + "e" * 34, "AIza" + "e" * 34),
        ("ghp_" + "f" * 36, REDACTED),
        ("gho_" + "f" * 36, REDACTED),
        ("ghp_" + "f" * 35, "ghp_" + "f" * 35),
        ("github_pat_" + "g" * 22, REDACTED),
        ("github_pat_" + "g" * 21, "github_pat_" + "g" * 21),
        ("xoxb-" + "1" * 10, REDACTED),
        ("xoxb-" + "1" * 9, "xoxb-" + "1" * 9),
        ("AKIA" + "Q" * 16, REDACTED),
        ("ASIA" + "Q" * 16, REDACTED),
        ("AKIA" + "Q" * 17, "AKIA" + "Q" * 17),  # a longer word is not an access key id
        ("eyJ" + "h" * 8 + "." + "i" * 8 + "." + "j" * 8, REDACTED),
        ("eyJ" + "h" * 8 + "." + "i" * 8, "eyJ" + "h" * 8 + "." + "i" * 8),
        (
            "a -----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY----- b",
            f"a {REDACTED} b",
        ),
        ("Authorization: tok", f"Authorization: {REDACTED}"),
        ('-H "x-api-key: abc" -d', f'-H "x-api-key: {REDACTED}" -d'),
        ("Cookie: a=1\nnext", f"Cookie: {REDACTED}\nnext"),
        ("x-goog-api-key:q", f"x-goog-api-key:{REDACTED}"),
        ("use Bearer abcdefgh now", f"use Bearer {REDACTED} now"),
        ("basic ABCDEFGH", f"basic {REDACTED}"),
        ("Bearer abcdefg", "Bearer abcdefg"),  # 7 characters: ordinary words
        ("GET /v1?key=abc&x=1", f"GET /v1?key={REDACTED}&x=1"),
        ("/v1?x=1&access_token=abc def", f"/v1?x=1&access_token={REDACTED} def"),
        ("/v1?monkey=banana", "/v1?monkey=banana"),
        ("password=hunter22;", f"password={REDACTED};"),
        ('"api_key": "abcdef"', f'"api_key": "{REDACTED}"'),
        ("token=abcde", "token=abcde"),  # 5 characters: too short to tell from text
        ("secret: ------", "secret: ------"),  # no letter or digit: not a credential
        ("the password is fine", "the password is fine"),
    ],
)
def test_each_default_pattern_and_its_near_miss(text: str, redacted: str) -> None:
    assert PLAIN.redact_text(text) == redacted
    off = Redactor(default_patterns=False, environment_values=False)
    assert off.redact_text(text) == text


@pytest.mark.parametrize(
    ("name", "redacted"),
    [
        ("PI_TEST_API_KEY", True),
        ("PI_TEST_TOKEN", True),
        ("PI_TEST_SECRET", True),
        ("PI_TEST_PASSWORD", True),
        ("PI_TEST_ACCESS_KEY", True),
        ("pi_test_token", True),  # names are compared upper case
        ("PI_TEST_TOKENS", False),
        ("PI_TEST_KEY", False),
        ("PI_TEST_HOME", False),
    ],
)
def test_environment_values_by_variable_name(
    monkeypatch: pytest.MonkeyPatch, name: str, redacted: bool
) -> None:
    value = "envval-" + name.lower() + "-1234"
    monkeypatch.setenv(name, value)
    assert Redactor().redact_text(f"<{value}>") == (f"<{REDACTED}>" if redacted else f"<{value}>")


def test_environment_values_shorter_than_the_floor_are_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short = "e" * (MIN_SECRET_LENGTH - 1)
    exact = "f" * MIN_SECRET_LENGTH
    monkeypatch.setenv("PI_TEST_SHORT_TOKEN", short)
    monkeypatch.setenv("PI_TEST_EXACT_TOKEN", exact)
    assert Redactor().redact_text(f"{short} {exact}") == f"{short} {REDACTED}"


def test_values_at_the_floor_are_redacted_and_one_shorter_are_not() -> None:
    exact, short = "q" * MIN_SECRET_LENGTH, "z" * (MIN_SECRET_LENGTH - 1)
    redactor = Redactor(values=[exact, short, ""], environment_values=False)
    assert redactor.redact_text(f"{exact} {short}") == f"{REDACTED} {short}"
    assert MIN_SECRET_LENGTH == 8


@pytest.mark.parametrize("order", [1, -1])
def test_a_secret_that_contains_another_is_replaced_whole(order: int) -> None:
    inner, outer = "opaque-01234", "tenant-opaque-01234-tail"
    redactor = Redactor(values=[inner, outer][::order], environment_values=False)
    assert redactor.redact_text(f"a {outer} b {inner} c") == f"a {REDACTED} b {REDACTED} c"


def test_every_occurrence_of_a_value_is_replaced() -> None:
    secret = "opaque-0123456789"
    redactor = Redactor(values=[secret], environment_values=False)
    assert redactor.redact_text(f"{secret}/{secret}") == f"{REDACTED}/{REDACTED}"


def test_redact_walks_every_container_and_keeps_scalars() -> None:
    secret = "opaque-0123456789"
    redactor = Redactor(values=[secret], environment_values=False)
    value = {
        "list": [secret, 1, None],
        "tuple": (secret, 2.5),
        "deep": {"a": [{"b": secret}]},
        1: secret,  # a non-text key is never a secret name, its value is still read
        "flag": True,
        "token": 0,  # a falsy but present secret value is still hidden
    }
    assert redactor.redact(value) == {
        "list": [REDACTED, 1, None],
        "tuple": [REDACTED, 2.5],
        "deep": {"a": [{"b": REDACTED}]},
        1: REDACTED,
        "flag": True,
        "token": REDACTED,
    }
    assert redactor.redact(7) == 7
    assert redactor.redact(None) is None


def test_redact_text_function_uses_patterns_values_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PI_TEST_FN_TOKEN", "env-fn-secret-42")
    text = "k=opaque-0123456789 env-fn-secret-42 Bearer abcdefgh1"
    assert redact_text(text, ["opaque-0123456789", None, ""]) == (
        f"k={REDACTED} {REDACTED} Bearer {REDACTED}"
    )


class _Silent(Exception):
    pass


def test_exception_text_redacts_and_names_an_empty_exception() -> None:
    assert exception_text(_Silent()) == "_Silent"
    assert exception_text(ValueError("bad Bearer abcdefgh1")) == f"bad Bearer {REDACTED}"


@pytest.mark.parametrize(
    ("name", "credential"),
    [
        ("X-Custom-AUTH", True),
        ("x-portkey-api-key", True),
        ("x-amz-security-token", True),
        ("client-secret-id", True),
        ("db-passw", True),
        ("cookie2", True),
        ("x-session", True),
        ("X-Amz-Signature", True),
        ("x-credential", True),
        ("x-request-id", False),
        ("user-agent", False),
        ("accept-encoding", False),
        ("x-stainless-retry-count", False),
    ],
)
def test_each_word_that_makes_a_header_name_a_credential(name: str, credential: bool) -> None:
    assert is_credential_name(name) is credential
    headers = {name: "value-0123456789", "accept": "application/json"}
    assert secret_header_values(headers) == (["value-0123456789"] if credential else [])


def test_secret_header_values_skips_empty_values_and_no_headers() -> None:
    assert secret_header_values(None) == []
    assert secret_header_values({}) == []
    assert secret_header_values({"authorization": "", "x-api-key": "k"}) == ["k"]


def test_a_pattern_whose_secret_group_did_not_match_replaces_the_whole_match() -> None:
    redactor = Redactor(
        patterns=[r"acct(?:-(?P<s>\d+))?"], default_patterns=False, environment_values=False
    )
    assert redactor.redact_text("acct-42 and acct.") == f"acct-{REDACTED} and {REDACTED}."
