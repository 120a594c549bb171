"""Calling conventions of the marked signatures in the tool-policy plugin.

Each row is a callable whose ``def`` has a bare ``*`` (keyword-only options after it) or ``/``
(positional-only parameters before it), and its parameters as the ``def`` lists them
(``_support.signatures.convention``). Callers rely on both sides of the marker: an option after
``*`` is refused by position (so a later parameter can be added before it), a parameter before
it is accepted by name (``Tracing(tracer_provider=...)``).
"""

from __future__ import annotations

import pytest
from _support.signatures import convention, resolve

CONVENTIONS = [
    ("pi_sdk_tool_policy.policy:ToolPolicy.__init__", "self, rules, *, default, approver"),
    ("pi_sdk_tool_policy.policy:ToolPolicy.from_dict", "cls, data, *, approver"),
    ("pi_sdk_tool_policy.policy:ToolPolicy.from_file", "cls, path, *, approver"),
]


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected
