"""Calling conventions of the marked signatures in the bash-records plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    (
        "pi_sdk_bash_records.run:run_bash",
        "command, *, cwd, env, timeout, signal, max_output_chars, shell",
    ),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
