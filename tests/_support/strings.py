"""Strings as a caller's program makes them: equal to the literal, never the same object."""

from __future__ import annotations


def built(text: str) -> str:
    """``text`` joined from its characters at run time, as a value read from a file, a form or
    JSON is: ``built(s) == s`` but ``built(s) is not s``, so a rule that tests identity where it
    means equality fails on it (the literals of a test are interned and cannot show that)."""
    made = "".join(list(text))
    assert made == text and made is not text
    return made
