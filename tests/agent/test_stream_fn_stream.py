"""An Agent's ``stream_fn`` may return the event stream itself (``pi_sdk.stream``).

``AssistantMessageEventStream`` is awaitable (``await stream`` is its final message), so the loop
must not await what a stream function returns when it is already a stream; a coroutine is awaited.
"""

from __future__ import annotations

from typing import Any

from _support.agent import isolated_plugins  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk.testing import ScriptedProvider


async def test_a_stream_function_may_return_pi_sdk_stream_itself():
    scripted = ScriptedProvider(["streamed answer"])
    agent = pi_sdk.Agent(model=scripted.model, stream_fn=pi_sdk.stream)
    await agent.prompt("hi")
    reply = agent.messages[-1]
    assert isinstance(reply, pi_sdk.AssistantMessage)
    assert (reply.stop_reason, reply.text) == ("stop", "streamed answer")


async def test_a_stream_function_may_be_a_coroutine_returning_the_stream():
    scripted = ScriptedProvider(["from a coroutine"])

    async def stream_fn(model: Any, context: Any, options: Any) -> Any:
        return pi_sdk.stream(model, context, options)

    agent = pi_sdk.Agent(model=scripted.model, stream_fn=stream_fn)
    await agent.prompt("hi")
    assert agent.messages[-1].text == "from a coroutine"  # type: ignore[union-attr]


async def test_a_stream_function_returning_neither_ends_the_run_saying_what_it_must_return():
    scripted = ScriptedProvider(["never"])

    def stream_fn(model: Any, context: Any, options: Any) -> Any:
        return 42

    agent = pi_sdk.Agent(model=scripted.model, stream_fn=stream_fn)
    await agent.prompt("hi")
    reply = agent.messages[-1]
    assert isinstance(reply, pi_sdk.AssistantMessage) and reply.stop_reason == "error"
    assert reply.error_message == (
        "stream_fn returned int: it must return an event stream (what pi_sdk.stream returns),"
        " or be async and return one"
    )
    assert [m.role for m in agent.messages] == ["user", "assistant"]
