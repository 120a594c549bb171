"""The kit's rules, one module each; :data:`RULES` names them in the order the suite runs them."""

from __future__ import annotations

__all__ = ["RULES"]

RULES = (
    "event contract",
    "truncation",
    "abort releases the connection",
    "aclose releases the connection",
    "break releases the connection",
    "retries before the first byte",
    "no secret leaks",
    "cassette replay",
)
"""Every rule's name, as :class:`pi_sdk_pytest.ConformanceFailure` messages say it."""
