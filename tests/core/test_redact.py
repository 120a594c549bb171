"""Redaction by known value: long values everywhere, short ones never (they are ordinary text)."""

from __future__ import annotations

import pytest

from pi_sdk._wire.redact import MIN_SECRET_LENGTH, REDACTED, Redactor, redact_text


@pytest.mark.parametrize("key", ["e", "k", "ab", "test", "abcdefg"])
def test_a_short_key_is_not_redacted_inside_ordinary_words(key: str):
    text = "false alarm: the key test failed at abcdefgh"
    assert redact_text(text, [key]) == text


def test_the_rule_names_its_length():
    assert MIN_SECRET_LENGTH == 8
    assert redact_text("key abcdefgh rejected", ["abcdefgh"]) == f"key {REDACTED} rejected"
    assert redact_text("key abcdefg rejected", ["abcdefg"]) == "key abcdefg rejected"


def test_short_values_given_to_a_redactor_are_left_out_too():
    redactor = Redactor(values=["x", "sk-long-enough-secret"], environment_values=False)
    assert redactor.redact({"note": "x marks sk-long-enough-secret"}) == {
        "note": f"x marks {REDACTED}"
    }


def test_patterns_still_catch_credentials_whatever_their_length():
    assert redact_text("Authorization: abc") == f"Authorization: {REDACTED}"
