"""Rule "truncation": a body cut at any byte ends in exactly one ``error``, partial content kept.

For every offset ``k`` from 0 to the body's length - 1, the server sends the body's first ``k``
bytes as a complete HTTP response (the body simply ends there, as when a proxy or the vendor
stops short) and the call goes through :func:`pi_sdk.stream` without retries. Each call keeps
the event contract and ends in one ``error`` whose message keeps the content that had arrived:
the start of the whole reply (same blocks, text that begins the whole text, same tool-call ids
and names), never less than a shorter cut kept. A cut at or after the end of the vendor's
terminal event may end in ``done``, but only with exactly the whole reply: a cut reply never
reads as a complete one.
"""

from __future__ import annotations

from pi_sdk_pytest.conformance.content import kept_size, not_a_prefix, reply_difference
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.loopback import body_reply
from pi_sdk_pytest.conformance.session import Session, run_rule

__all__ = ["RULE", "check_truncation"]

RULE = "truncation"


def check_truncation(subject: ProviderUnderTest) -> None:
    """Cut each recorded body at every byte offset and stream the rest of it.

    Raises:
        ConformanceFailure: a cut reply ended otherwise than described in the module.
    """

    async def check(session: Session) -> None:
        for body in subject.bodies:
            await _cuts(session, body)

    run_rule(subject, RULE, check)


async def _cuts(session: Session, body: RecordedBody) -> None:
    session.server.play(body_reply(body.body, body.content_type))
    _, whole = await session.complete(body=body)
    kept_before = 0
    done_at: int | None = None
    for offset in range(len(body.body)):
        session.server.play(body_reply(body.body[:offset], body.content_type))
        events, message = await session.complete(body=body)
        cut = f"cut at byte {offset} of {len(body.body)}"
        if events[-1].type == "done":
            difference = reply_difference(message, whole)
            if difference is not None:
                session.fail(
                    f"{cut}: the cut reply ended in 'done' but is not the whole reply "
                    f"({difference}); a reply cut before the vendor's terminal event must end "
                    "in one 'error'",
                    body=body,
                )
            done_at = offset if done_at is None else done_at
            continue
        if done_at is not None:
            session.fail(
                f"{cut}: ended in 'error' ({message.error_message}) although the shorter cut "
                f"at byte {done_at} ended in 'done'",
                body=body,
            )
        if message.stop_reason != "error":
            session.fail(f"{cut}: stop_reason {message.stop_reason!r}, not 'error'", body=body)
        problem = not_a_prefix(message, whole)
        if problem is not None:
            session.fail(
                f"{cut}: the partial content kept is not the reply's start: {problem}", body=body
            )
        size = kept_size(message)
        if size < kept_before:
            session.fail(
                f"{cut}: kept less content ({size}) than a shorter cut ({kept_before}): the "
                "partial content must be kept",
                body=body,
            )
        kept_before = size
