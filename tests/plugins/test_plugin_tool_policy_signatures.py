"""Calling conventions of the marked signatures in the tool-policy plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk_tool_policy.policy:ToolPolicy.__init__", "self, rules, *, default, approver"),
    ("pi_sdk_tool_policy.policy:ToolPolicy.from_dict", "cls, data, *, approver"),
    ("pi_sdk_tool_policy.policy:ToolPolicy.from_file", "cls, path, *, approver"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
