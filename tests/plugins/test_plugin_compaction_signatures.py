"""Calling conventions of the marked signatures in the compaction plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk_compaction.cut:choose_cut", "tokens, cut_points, *, start, keep_tokens"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
