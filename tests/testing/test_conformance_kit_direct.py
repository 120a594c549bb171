"""The event-contract rule names a stream function that raises when iterated directly (issue 34).

The rule plays each body twice: through ``pi_sdk.stream`` (which turns any exception into an
``error`` event) and by iterating the provider's stream function itself, where an exception
escapes. The kit must report that as the rule's failure, naming the exception, not let it
escape the check (a fresh sample, seed 20261206, showed no test held it to that).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pi_sdk_pytest.conformance.rules.event_contract import check_event_contract
from test_conformance_kit import failure_of, stream_anthropic_messages, subject

CALLS: list[int] = []


async def raises_when_iterated_directly(
    model: Any, context: Any, options: Any
) -> AsyncIterator[Any]:
    """Well behaved on the first call of each pair (through the core), broken on the second."""
    CALLS.append(1)
    if len(CALLS) % 2 == 0:
        raise RuntimeError("lost the connection pool")
    async for event in stream_anthropic_messages(model, context, options):
        yield event


def test_an_exception_of_the_stream_function_fails_the_rule_by_name() -> None:
    CALLS.clear()
    failure = failure_of(lambda: check_event_contract(subject(raises_when_iterated_directly)))
    assert failure.rule == "event contract"
    assert str(failure).startswith(
        "conformance rule 'event contract' failed for raises-when-iterated-directly (body "
        "'text'): the stream function, iterated directly, raised RuntimeError: lost the "
        "connection pool"
    )
    assert len(CALLS) == 2
