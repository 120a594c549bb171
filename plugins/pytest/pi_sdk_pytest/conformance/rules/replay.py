"""Rule "cassette replay": a call recorded into a cassette replays offline with the same events.

One call per recorded body is recorded from the kit's server into a vcrpy cassette
(:func:`pi_sdk_pytest.open_cassette`, the pytest plugin's recorder: keys scrubbed), then played
again on a new event loop (new clients, as in a later test run) with the network blocked and
strict matching (method, URL, JSON body). The replay must answer every request, play every
recorded interaction and give the same events (types and deltas) and the same reply; the
cassette must not contain the API key.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pi_sdk import AssistantMessage, AssistantMessageEvent
from pi_sdk_pytest.cassette import open_cassette
from pi_sdk_pytest.conformance.content import reply_difference
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.loopback import body_reply
from pi_sdk_pytest.conformance.session import FAKE_KEY, Session, run_rule

__all__ = ["RULE", "check_replay"]

RULE = "cassette replay"


def check_replay(subject: ProviderUnderTest) -> None:
    """Record one call per body, replay it offline, compare.

    Raises:
        ConformanceFailure: the replay missed, was blocked, left an interaction unplayed or
            gave other events; or the cassette holds the key.
    """
    with tempfile.TemporaryDirectory(prefix="pi-sdk-conformance-") as folder:
        for number, body in enumerate(subject.bodies):
            _record_and_replay(subject, body, Path(folder) / f"{number}.yaml")


def _trace(events: list[AssistantMessageEvent]) -> list[tuple[str, object]]:
    return [(event.type, getattr(event, "delta", None)) for event in events]


def _record_and_replay(subject: ProviderUnderTest, body: RecordedBody, path: Path) -> None:
    recorded: list[tuple[list[AssistantMessageEvent], AssistantMessage]] = []
    url: list[str] = []

    async def record(session: Session) -> None:
        session.server.play(body_reply(body.body, body.content_type))
        url.append(session.server.url)
        with open_cassette(path, record_mode="all"):
            recorded.append(await session.complete(body=body))

    async def replay(session: Session) -> None:
        if FAKE_KEY in path.read_text(encoding="utf-8"):
            session.fail("the API key was written to the cassette", body=body)
        with open_cassette(path, record_mode="none") as cassette:
            events, message = await session.complete(body=body)
        problems = cassette.problems()
        if problems:
            session.fail(f"replay: {'; '.join(problems)}", body=body)
        [(first_events, first)] = recorded
        difference = reply_difference(message, first)
        if _trace(events) != _trace(first_events) or difference is not None:
            session.fail(
                f"the replay gave other events ({[e.type for e in events]}) or another reply "
                f"({difference}) than the recorded call",
                body=body,
            )

    run_rule(subject, RULE, record)
    run_rule(subject, RULE, replay, model_url=url[0])
