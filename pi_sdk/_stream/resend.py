"""A refused request sent once more in its lesser form, and the sessions that need it (layer 1).

A plan (:class:`~pi_sdk.provider.HttpCall`) may carry a lesser form of its request
(``resend_payload``): the same request without something the vendor may refuse it for. The read
loop sends it here (:func:`send_request`):

* at once, when an earlier attempt of the call, or an earlier call of the same
  ``StreamOptions.session_id``, was refused for the plan's ``resend_reason``;
* else the full request; when :attr:`~pi_sdk.provider.HttpCall.send` raises an error the plan's
  ``resend_on`` recognizes (and the call was not aborted), the lesser one, once, with a
  diagnostic for the reply. Its own failure is the call's error: nothing is sent a third time.

Only a refused request is sent again: ``send`` raises before any byte of the reply is read, so
nothing streamed is repeated. The resend happens inside one attempt: it is not a retry
(``max_retries`` counts none of it), and a retry after it sends the lesser form.

Source: pi-ai 1.6 ``strict-tool-limits.ts`` with ``anthropic-messages.ts`` and
``bedrock-converse-stream.ts`` (a request whose ``strict: "prefer"`` tools Claude refused as over
its limits goes again with them non-strict; the session is remembered, at most 10,000 of them,
the oldest dropped first: a dropped session pays one more refusal).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pi_sdk._stream.contract import HttpCall
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk._stream.wire_decoder import HttpResponse
from pi_sdk.options import StreamOptions
from pi_sdk.types import Diagnostic

__all__ = [
    "MAX_REMEMBERED_SESSIONS",
    "Hooked",
    "Resends",
    "remembered",
    "send_request",
]

MAX_REMEMBERED_SESSIONS = 10_000
"""How many ``(reason, session)`` pairs are remembered (pi-ai 1.6
``MAX_SESSIONS_OVER_STRICT_TOOL_LIMITS``)."""

_sessions: dict[tuple[str, str], None] = {}
"""``(resend_reason, session_id)`` of the sessions whose request was refused, oldest first."""

Hooked = Callable[[Callable[[str], dict[str, Any]]], Awaitable[dict[str, Any]]]
"""``await hooked(build_payload)``: the payload built for the URL called, after the hooks."""


def remembered(reason: str, session_id: str | None) -> bool:
    """True when a request of ``session_id`` was refused for ``reason`` (no session: False)."""
    return session_id is not None and (reason, session_id) in _sessions


def _remember(reason: str, session_id: str | None) -> None:
    """Remember a refused session (nothing without one), dropping the oldest beyond the cap."""
    if session_id is None:
        return
    _sessions[(reason, session_id)] = None
    while len(_sessions) > MAX_REMEMBERED_SESSIONS:
        _sessions.pop(next(iter(_sessions)), None)


class Resends(Protocol):
    """The call's record of its resend (the read loop): ``resent`` is its diagnostic, once made."""

    resent: Diagnostic | None


async def send_request(
    plan: HttpCall[Any], client: Any, hooked: Hooked, options: StreamOptions, call: Resends
) -> HttpResponse:
    """Send the attempt's request (its lesser form when due); the unread response.

    ``call.resent``: the diagnostic of the call's resend, set before the lesser form is sent, so
    the call's reply (or its error) carries it; while set, each attempt sends the lesser form at
    once.

    Raises:
        ProviderError: what ``send`` raised for the request (when not resent) or the resend.
        Anything the payload builders or the hooks raise.
    """
    lesser = plan.resend_payload
    if lesser is None:
        return await plan.send(client, await hooked(plan.build_payload))
    reason = plan.resend_reason
    if call.resent is not None or remembered(reason, options.session_id):
        return await plan.send(client, await hooked(lesser))
    try:
        return await plan.send(client, await hooked(plan.build_payload))
    except ProviderError as exc:
        kind = plan.resend_on(exc) if plan.resend_on is not None else None
        signal = options.signal
        if kind is None or (signal is not None and signal.aborted):
            raise
        refusal = str(exc)
    _remember(reason, options.session_id)
    call.resent = Diagnostic(type=kind, error={"message": refusal}, details={"reason": reason})
    return await plan.send(client, await hooked(lesser))
