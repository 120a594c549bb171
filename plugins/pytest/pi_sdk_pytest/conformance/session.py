"""One rule's run: the provider installed, the fake key in place, the kit's server, the calls.

:func:`run_rule` prepares the process (the provider installed, the key's environment variable
set to :data:`FAKE_KEY` when the declaration names one), starts a :class:`LoopbackServer` and
runs the rule's coroutine on a fresh event loop (``asyncio.run``), so a rule works with and
without pytest-asyncio. :class:`Session` is what a rule holds: the model pointed at the server,
calls through :func:`pi_sdk.stream`, and :meth:`Session.fail`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterable, Awaitable, Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn

import pi_sdk
from pi_sdk import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    Model,
    StreamOptions,
    UserMessage,
)
from pi_sdk_pytest.conformance.contract import contract_violations, final_message
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest, RecordedBody
from pi_sdk_pytest.conformance.failure import ConformanceFailure
from pi_sdk_pytest.conformance.installed import provider_installed
from pi_sdk_pytest.conformance.loopback import LoopbackServer

__all__ = ["CONTEXT", "FAKE_KEY", "Session", "run_rule"]

FAKE_KEY = "pi-kit-zq7Xv2Lm9Rt4Wc8Nb3"
"""The API key of every call: distinctive, so any copy of it in an error, a repr, a log record or
a cassette is found; in no known credential format, so only the call's own redaction hides it."""

CONTEXT = Context(messages=[UserMessage(content="Hello from the pi-sdk conformance kit.")])
"""The request of every call (the recorded body answers whatever was asked)."""

OnEvent = Callable[[int, AssistantMessageEvent], bool]
"""Called with each event's position and the event; True stops the consumer there."""


@dataclass
class Session:
    """A rule's view of one prepared provider and the kit's server."""

    subject: ProviderUnderTest
    rule: str
    server: LoopbackServer
    model: Model

    def fail(self, detail: str, *, body: RecordedBody | None = None) -> NoReturn:
        """Raise :class:`ConformanceFailure` for this rule (and body, when given)."""
        where = f"body {body.name!r}" if body is not None else ""
        raise ConformanceFailure(self.rule, self.subject.name, detail, where=where)

    def options(self, *, max_retries: int = 0, signal: AbortSignal | None = None) -> StreamOptions:
        """The call options: the fake key (unless the environment carries it), no retry wait."""
        return StreamOptions(
            api_key=None if self.subject.api_key_env else FAKE_KEY,
            max_retries=max_retries,
            max_retry_delay_ms=1,
            signal=signal,
            provider_options=dict(self.subject.provider_options),
        )

    def stream(self, options: StreamOptions | None = None) -> AssistantMessageEventStream:
        """A call through :func:`pi_sdk.stream`, not yet started."""
        return pi_sdk.stream(self.model, CONTEXT, options or self.options())

    async def consume(
        self,
        events: AsyncIterable[AssistantMessageEvent],
        *,
        on_event: OnEvent | None = None,
        body: RecordedBody | None = None,
    ) -> list[AssistantMessageEvent]:
        """Iterate ``events`` to their end, or until ``on_event`` says stop; the events seen.

        Raises:
            ConformanceFailure: the call did not end within ``call_deadline_s`` (a hang).
            Exception: whatever iterating ``events`` raised (a stream function called
                directly raises its failures).
        """
        seen: list[AssistantMessageEvent] = []

        async def read() -> None:
            async for event in events:
                seen.append(event)
                if on_event is not None and on_event(len(seen) - 1, event):
                    return

        try:
            await asyncio.wait_for(read(), self.subject.call_deadline_s)
        except TimeoutError:
            kinds = [event.type for event in seen][-5:]
            self.fail(
                f"the call did not end within {self.subject.call_deadline_s:g} s "
                f"(last events: {kinds}); a provider must end its stream at the vendor's "
                "terminal event and on every failure",
                body=body,
            )
        return seen

    async def complete(
        self, options: StreamOptions | None = None, *, body: RecordedBody | None = None
    ) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
        """One whole call through :func:`pi_sdk.stream`: its events and final message.

        Raises:
            ConformanceFailure: the events break the event contract, or the call hangs.
        """
        events = await self.consume(self.stream(options), body=body)
        self.check_contract(events, body=body, how="through pi_sdk.stream")
        message = final_message(events)
        assert message is not None
        return events, message

    def check_contract(
        self, events: list[AssistantMessageEvent], *, body: RecordedBody | None, how: str
    ) -> None:
        """Fail when ``events`` break the event contract (the rule says which call it was)."""
        problems = contract_violations(events)
        if problems:
            kinds = [event.type for event in events]
            self.fail(f"{how}: {'; '.join(problems)} (events: {kinds})", body=body)


@contextmanager
def _key_in_environment(subject: ProviderUnderTest) -> Generator[None]:
    if subject.api_key_env is None:
        yield
        return
    name = subject.api_key_env
    previous = os.environ.get(name)
    os.environ[name] = FAKE_KEY
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def run_rule(
    subject: ProviderUnderTest,
    rule: str,
    check: Callable[[Session], Awaitable[None]],
    *,
    model_url: str | None = None,
) -> None:
    """Run ``check`` on a fresh event loop with the provider prepared and the server up.

    ``model_url``: point the model there instead of at this run's server (the URL a cassette
    was recorded from, in an earlier run).

    Raises:
        ConformanceFailure: the provider broke the rule.
    """

    async def main() -> None:
        async with LoopbackServer() as server:
            model = subject.model(model_url or server.url)
            await check(Session(subject, rule, server, model))

    with provider_installed(subject), _key_in_environment(subject):
        asyncio.run(main())
