"""Calling conventions of the marked signatures in the audit-log plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk_audit_log.log:AuditLog.__init__", "self, sink, *, redactor, skip_events"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
