"""Rule "no secret leaks": the API key never appears in errors, reprs or log records.

Every call carries :data:`FAKE_KEY` (from the environment variable the declaration names, else
in ``StreamOptions.api_key``). Calls: each recorded body; an HTTP 401 whose body echoes the key
(vendors do); a body cut by a connection reset; a connection reset before the response. Every
logger is set to DEBUG meanwhile and every record is captured (message, arguments, exception).
The key must not appear in any event's ``repr``, the final message's ``repr`` and JSON, its
``error_message``, or a log record; and it must have reached the server (a header or the URL),
or the rule would show nothing.
"""

from __future__ import annotations

import json

from pi_sdk import AssistantMessageEvent
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest
from pi_sdk_pytest.conformance.log_capture import every_log_record
from pi_sdk_pytest.conformance.loopback import Reply, body_reply
from pi_sdk_pytest.conformance.session import FAKE_KEY, Session, run_rule

__all__ = ["RULE", "check_secrets"]

RULE = "no secret leaks"


def _scenarios(subject: ProviderUnderTest) -> list[tuple[str, Reply]]:
    body = subject.bodies[0]
    echo = {"type": "authentication_error", "message": f"invalid API key {FAKE_KEY}"}
    half = body.body[: max(1, len(body.body) // 2)]
    return [
        *((f"body {b.name!r}", body_reply(b.body, b.content_type)) for b in subject.bodies),
        (
            "an HTTP 401 echoing the key",
            Reply(
                401, {"content-type": "application/json"}, (json.dumps({"error": echo}).encode(),)
            ),
        ),
        (
            "a body cut by a connection reset",
            Reply(headers={"content-type": body.content_type}, parts=(half,), end="rst"),
        ),
        ("a connection reset before the response", Reply(rst_before_headers=True)),
    ]


def _leaks(events: list[AssistantMessageEvent]) -> list[str]:
    """Where the key is in the events and their final message."""
    found = [f"repr of event {i} ({e.type})" for i, e in enumerate(events) if FAKE_KEY in repr(e)]
    last = events[-1]
    message = last.message if last.type == "done" else last.error if last.type == "error" else None
    if message is not None:
        if FAKE_KEY in (message.error_message or ""):
            found.append("the error_message")
        if FAKE_KEY in repr(message) or FAKE_KEY in message.model_dump_json():
            found.append("the final message (repr or JSON)")
    return found


def check_secrets(subject: ProviderUnderTest) -> None:
    """Run the calls of the module and look for the key everywhere a user could see it.

    Raises:
        ConformanceFailure: the key leaked, or never reached the server.
    """

    async def check(session: Session) -> None:
        with every_log_record() as captured:
            for scenario, reply in _scenarios(subject):
                session.server.play(reply)
                events = await session.consume(session.stream())
                leaks = _leaks(events)
                if leaks:
                    session.fail(f"{scenario}: the API key is in {', '.join(leaks)}")
        logged = [line for line in captured.lines if FAKE_KEY in line]
        if logged:
            session.fail(f"the API key is in {len(logged)} log record(s), e.g. {logged[0][:300]!r}")
        sent = any(
            FAKE_KEY in request.target or FAKE_KEY in " ".join(request.headers.values())
            for request in session.server.received
        )
        if not sent:
            route = subject.api_key_env or "StreamOptions.api_key"
            session.fail(
                f"the key never reached the server, so nothing was shown: the kit put it in "
                f"{route}; declare the variable the provider reads (api_key_env)"
            )

    run_rule(subject, RULE, check)
