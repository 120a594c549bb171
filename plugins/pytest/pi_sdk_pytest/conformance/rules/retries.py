"""Rule "retries before the first byte": a failure before any body byte is retried, none after.

Each case scripts the server's first answer, then the recorded body; the call goes through
:func:`pi_sdk.stream` with ``max_retries`` as given, and the server counts the requests:

==============================================  ===========  ============  ========
first answer                                    max_retries  ends in       requests
==============================================  ===========  ============  ========
HTTP 503, 500, 429 (one case each)              1            ``done``      2
connection reset before the response            1            ``done``      2
headers, then reset before any body byte        1            ``done``      2
headers, then closed before any body byte       1            ``done``      2
HTTP 503                                        0            ``error``     1
HTTP 400                                        2            ``error``     1
the body's first half, then a connection reset  2            ``error``     1
==============================================  ===========  ============  ========

A retried call must give the whole reply; the last case keeps the half that had arrived. The
error bodies are a generic ``{"error": {"type", "message"}}`` JSON document: whatever its shape,
the status decides.
"""

from __future__ import annotations

import json

from pi_sdk_pytest.conformance.content import not_a_prefix, reply_difference
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.loopback import Reply, body_reply
from pi_sdk_pytest.conformance.session import Session, run_rule

__all__ = ["RULE", "check_retries"]

RULE = "retries before the first byte"


def _status(status: int) -> Reply:
    error = {"type": "conformance_kit", "message": f"the conformance kit answers {status}"}
    body = json.dumps({"error": error}).encode()
    return Reply(status=status, headers={"content-type": "application/json"}, parts=(body,))


def _cases(body: RecordedBody) -> list[tuple[str, Reply, int, bool]]:
    """``(first answer, its reply, max_retries, retried)`` of every case."""
    half = body.body[: max(1, len(body.body) // 2)]
    headers = {"content-type": body.content_type}
    return [
        ("HTTP 503", _status(503), 1, True),
        ("HTTP 500", _status(500), 1, True),
        ("HTTP 429", _status(429), 1, True),
        ("a connection reset before the response", Reply(rst_before_headers=True), 1, True),
        ("headers, then reset before any body byte", Reply(headers=headers, end="rst"), 1, True),
        ("headers, then closed before any body byte", Reply(headers=headers, end="close"), 1, True),
        ("HTTP 503 with max_retries=0", _status(503), 0, False),
        ("HTTP 400", _status(400), 2, False),
        (
            "the body's first half, then a connection reset",
            Reply(headers=headers, parts=(half,), end="rst"),
            2,
            False,
        ),
    ]


def check_retries(subject: ProviderUnderTest) -> None:
    """Run every case of the table on the first recorded body.

    Raises:
        ConformanceFailure: a case was retried when it must not be, or the other way round.
    """
    body = subject.bodies[0]

    async def check(session: Session) -> None:
        session.server.play(body_reply(body.body, body.content_type))
        _, whole = await session.complete(body=body)
        for first, reply, retries, retried in _cases(body):
            session.server.play(reply, body_reply(body.body, body.content_type))
            before = len(session.server.received)
            _, message = await session.complete(session.options(max_retries=retries), body=body)
            requests = len(session.server.received) - before
            case = f"{first}, max_retries={retries}"
            if retried and (requests != 2 or reply_difference(message, whole) is not None):
                session.fail(
                    f"{case}: {requests} request(s), {message.stop_reason!r} "
                    f"({message.error_message}); a failure before any body byte must be retried "
                    "and give the whole reply",
                    body=body,
                )
            if not retried and (requests != 1 or message.stop_reason != "error"):
                session.fail(
                    f"{case}: {requests} request(s), {message.stop_reason!r}; it must end in "
                    "'error' after one request (not retried)",
                    body=body,
                )
            problem = None if retried else not_a_prefix(message, whole)
            if problem is not None:
                session.fail(
                    f"{case}: the content kept is not the reply's start: {problem}", body=body
                )

    run_rule(subject, RULE, check)
