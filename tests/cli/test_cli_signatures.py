"""Calling conventions of the marked signatures in the command line, ``pi_sdk._cli``.

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
    ("pi_sdk._cli.chat_session:open_session", "session, *, resume, allow_truncated"),
    ("pi_sdk._cli.common:add_command", "commands, name, help, run, *, json_help"),
    ("pi_sdk._cli.file_lock:file_lock", "path, *, timeout_s"),
    (
        "pi_sdk._cli.render:TurnPrinter.__init__",
        "self, console, *, notes, totals, thinking_hint, session_file",
    ),
    ("pi_sdk._cli.render:TurnPrinter._print", "self, text, style, *, end"),
    ("pi_sdk._cli.replay:_replay", "path, api, as_json, out, err, *, strict"),
    ("pi_sdk._cli.setup:build_agent", "args, model, *, messages, thinking_level, note"),
    ("pi_sdk._cli.turn:run_prompt", "agent, text, notify, *, second_leaves"),
    ("pi_sdk._cli.waiting:WaitNotes.__init__", "self, note, model, *, after_s, call_later"),
]


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected
