"""Calling conventions of the marked signatures in ``pi_sdk._testing`` and ``pi_sdk_pytest``.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk._testing.json_body:json_body", "body, *, keep_unparsed"),
    ("pi_sdk._testing.replay:plan_replay", "interactions, *, api"),
    ("pi_sdk._testing.replay:replay", "path, *, api, options"),
    ("pi_sdk._testing.replay:replay_all", "path, *, api, options"),
    (
        "pi_sdk._testing.scripted:ScriptedReply.tool_call",
        "cls, name, arguments, *, id, text, **options",
    ),
    (
        "pi_sdk._testing.scripted:ScriptedProvider.__init__",
        "self, replies, *, model_id, provider, reasoning",
    ),
    (
        "pi_sdk_pytest.cassette:open_cassette",
        (
            "path, *, recording, record_mode, allowed_hosts, match_body, "
            "ignore_body_keys, secret_headers, secrets, **vcr_options"
        ),
    ),
    (
        "pi_sdk_pytest.conformance.declaration:RecordedBody.from_file",
        "cls, path, content_type, *, name",
    ),
    (
        "pi_sdk_pytest.conformance.declaration:RecordedBody.from_cassette",
        "cls, path, *, interaction, name",
    ),
    (
        "pi_sdk_pytest.conformance.failure:ConformanceFailure.__init__",
        "self, rule, provider, detail, *, where",
    ),
    ("pi_sdk_pytest.conformance.loopback:body_reply", "body, content_type, *, end"),
    ("pi_sdk_pytest.conformance.session:Session.fail", "self, detail, *, body"),
    ("pi_sdk_pytest.conformance.session:Session.options", "self, *, max_retries, signal"),
    ("pi_sdk_pytest.conformance.session:Session.consume", "self, events, *, on_event, body"),
    ("pi_sdk_pytest.conformance.session:Session.complete", "self, options, *, body"),
    ("pi_sdk_pytest.conformance.session:Session.check_contract", "self, events, *, body, how"),
    ("pi_sdk_pytest.conformance.session:run_rule", "subject, rule, check, *, model_url"),
    ("pi_sdk_pytest.scrub:strip_query_parameters", "uri, names, *, by_rule"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
