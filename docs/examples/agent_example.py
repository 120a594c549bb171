"""An agent with one tool, on the scripted provider: prints every event of the run.

Run it with ``uv run python docs/examples/agent_example.py``; it needs no network and no key.
"""

import asyncio

import pi_sdk
from pi_sdk.testing import ScriptedProvider, ScriptedReply


@pi_sdk.tool
async def get_weather(city: str) -> str:
    """Return the current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    return f"{city}: 21°C, sunny"


def show(event: pi_sdk.AgentEvent) -> None:
    """Print one line per event (text deltas inline)."""
    match event:
        case pi_sdk.MessageUpdateEvent(assistant_message_event=pi_sdk.TextDeltaEvent(delta=d)):
            print(f"  text_delta {d!r}")
        case pi_sdk.MessageUpdateEvent():
            pass  # thinking and tool-call argument deltas
        case pi_sdk.MessageStartEvent(message=m) | pi_sdk.MessageEndEvent(message=m):
            print(f"{event.type} {m.role}")
        case pi_sdk.ToolExecutionStartEvent(tool_name=name, args=args):
            print(f"{event.type} {name} {args}")
        case pi_sdk.ToolExecutionEndEvent(tool_name=name, result=result, is_error=failed):
            status = "error" if failed else "->"
            text = "".join(b.text for b in result.content if isinstance(b, pi_sdk.TextContent))
            print(f"{event.type} {name} {status} {text}")
        case _:
            print(event.type)


async def main() -> None:
    # The "model": two scripted replies, a tool call and then the answer.
    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("get_weather", {"city": "Paris"}),
            "It is 21°C and sunny in Paris.",
        ]
    )
    agent = pi_sdk.Agent(
        model=provider.model,
        system_prompt="You answer weather questions with the get_weather tool.",
        tools=[get_weather],
    )
    agent.subscribe(show)
    await agent.prompt("What's the weather in Paris?")

    print("transcript:", [m.role for m in agent.messages])  # every message has a role
    answer = agent.messages[-1]
    if isinstance(answer, pi_sdk.AssistantMessage):  # narrow before reading assistant fields
        print("answer:", answer.text)
    # What the model saw on its second call: the question, its tool call, the result.
    print("second call saw:", [m.role for m in provider.calls[1].messages])


if __name__ == "__main__":
    asyncio.run(main())
