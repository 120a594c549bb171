"""Rule "event contract": every recorded body, streamed, keeps pi-spec §2's event contract.

Checked twice per body. Through :func:`pi_sdk.stream`, what a user sees: one ``start``, ordered
and properly nested blocks, exactly one terminal event and nothing after it, and a ``done``
(the bodies are successful replies). Then the provider's stream function is iterated directly,
to its end, when it is a plain async iterator of events: the core's event stream repairs or
hides some violations (it stops reading at the first terminal event, synthesizes a missing
``start``, closes blocks left open at ``done``), and a caller that iterates the function
itself (a test, a proxy) would get them; both runs must give the same reply.
"""

from __future__ import annotations

from pi_sdk_pytest.conformance.content import reply_difference
from pi_sdk_pytest.conformance.contract import final_message
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.installed import raw_stream
from pi_sdk_pytest.conformance.loopback import body_reply
from pi_sdk_pytest.conformance.session import CONTEXT, Session, run_rule

__all__ = ["RULE", "check_event_contract"]

RULE = "event contract"

_MAX_EXTRA_EVENTS = 1000
"""Events a directly iterated stream function may yield beyond the core's count before the rule
stops reading it (a generator that never ends)."""


def check_event_contract(subject: ProviderUnderTest) -> None:
    """Stream each recorded body through :func:`pi_sdk.stream` and directly.

    Raises:
        ConformanceFailure: a call broke the contract, a body did not end in ``done``, or
            the direct iteration raised or gave another reply.
    """

    async def check(session: Session) -> None:
        for body in subject.bodies:
            session.server.play(body_reply(body.body, body.content_type))
            events, message = await session.complete(body=body)
            if events[-1].type != "done":
                session.fail(
                    f"the recorded body ended in {events[-1].type!r}, not 'done': "
                    f"{message.error_message}",
                    body=body,
                )
            await _direct(session, body, len(events))

    run_rule(subject, RULE, check)


async def _direct(session: Session, body: RecordedBody, expected: int) -> None:
    """Iterate the stream function itself to its end; the same contract, the same reply."""
    session.server.play(body_reply(body.body, body.content_type))
    events = raw_stream(session.model, CONTEXT, session.options())
    if events is None:
        return
    limit = expected + _MAX_EXTRA_EVENTS
    try:
        seen = await session.consume(events, on_event=lambda number, _: number >= limit, body=body)
    except Exception as exc:  # noqa: BLE001 - the rule reports what the function raised
        session.fail(
            f"the stream function, iterated directly, raised {type(exc).__name__}: {exc}",
            body=body,
        )
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
    session.check_contract(seen, body=body, how="the stream function iterated directly")
    direct = final_message(seen)
    _, through_core = await session.complete(body=body)
    assert direct is not None
    difference = reply_difference(direct, through_core)
    if difference is not None:
        session.fail(
            f"the stream function iterated directly gives another reply than pi_sdk.stream: "
            f"{difference}",
            body=body,
        )
