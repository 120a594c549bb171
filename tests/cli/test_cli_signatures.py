"""Calling conventions of the marked signatures in the command line, ``pi_sdk._cli``.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

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


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
