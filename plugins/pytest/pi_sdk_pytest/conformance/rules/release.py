"""Rules "abort / aclose / break releases the connection", at every event of every body.

The server sends the whole recorded body and then keeps the response open ("hang"): the
connection is released only when the client closes it, which the server sees
(:meth:`LoopbackServer.released`). For each event position ``i`` of the reply, one call through
:func:`pi_sdk.stream` is left at ``i``:

* **abort**: ``StreamOptions(signal=...)`` is aborted when event ``i`` arrives and the consumer
  reads on; the stream must end in one ``error`` with reason ``aborted``, the content that had
  arrived kept (not applicable to the terminal event: nothing is left to abort);
* **aclose**: the consumer stops at event ``i`` and awaits ``stream.aclose()``;
* **break**: the consumer leaves its ``async for`` with ``break`` at event ``i`` and drops the
  stream (the event loop finalizes it).

After each, the server must see the connection closed. A provider passes when its stream
function closes its HTTP response when it is closed (``async with`` or ``try``/``finally``
around the response; the kit's ``run_http_stream`` does it).
"""

from __future__ import annotations

from typing import Literal

from pi_sdk import AbortController, AssistantMessage, AssistantMessageEvent
from pi_sdk_pytest.conformance.content import not_a_prefix
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.loopback import body_reply
from pi_sdk_pytest.conformance.session import Session, run_rule

__all__ = ["check_release"]

How = Literal["abort", "aclose", "break"]


def check_release(subject: ProviderUnderTest, how: How) -> None:
    """Leave a call at every event, ``how`` says how; the connection must be closed each time.

    Raises:
        ConformanceFailure: a connection stayed open, or an aborted stream did not end in one
            ``aborted`` error keeping its content.
    """

    async def check(session: Session) -> None:
        for body in subject.bodies:
            session.server.play(body_reply(body.body, body.content_type))
            events, whole = await session.complete(body=body)
            session.server.play(body_reply(body.body, body.content_type, end="hang"))
            positions = range(len(events) - 1 if how == "abort" else len(events))
            for position in positions:
                left_at = await _leave(session, body, how, position)
                if not await session.server.released(subject.release_deadline_s):
                    session.fail(
                        f"after {_WORDS[how]} at event {position} ({left_at[position].type}), "
                        "the HTTP connection stayed open: close the response when the stream is "
                        "closed "
                        "(async with / try-finally around it)",
                        body=body,
                    )
                if how == "abort":
                    _check_aborted(session, body, left_at, position, whole)

    run_rule(subject, f"{how} releases the connection", check)


_WORDS = {"abort": "an abort", "aclose": "aclose()", "break": "a break"}


async def _leave(
    session: Session, body: RecordedBody, how: How, position: int
) -> list[AssistantMessageEvent]:
    """One call left at event ``position``; the events seen (all of them, for an abort)."""
    if how == "abort":
        controller = AbortController()
        events = session.stream(session.options(signal=controller.signal))

        def abort_at(number: int, _: AssistantMessageEvent) -> bool:
            if number == position:
                controller.abort()
            return False

        return await session.consume(events, on_event=abort_at, body=body)
    if how == "aclose":
        events = session.stream()
        seen = await session.consume(events, on_event=lambda n, _: n == position, body=body)
        await events.aclose()
        return seen
    # "break": the stream is created and dropped inside consume(): no reference outlives it.
    return await session.consume(session.stream(), on_event=lambda n, _: n == position, body=body)


def _check_aborted(
    session: Session,
    body: RecordedBody,
    events: list[AssistantMessageEvent],
    position: int,
    whole: AssistantMessage,
) -> None:
    session.check_contract(events, body=body, how=f"aborted at event {position}")
    last = events[-1]
    if last.type != "error" or last.reason != "aborted":
        session.fail(
            f"aborted at event {position}: the stream ended in {last.type!r} "
            f"({getattr(last, 'reason', '')}), not one 'error' with reason 'aborted'",
            body=body,
        )
    problem = not_a_prefix(last.error, whole)
    if problem is not None:
        session.fail(
            f"aborted at event {position}: the content kept is not the reply's start: {problem}",
            body=body,
        )
