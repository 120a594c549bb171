"""One conversation that migrates across seven wire APIs, shared by its test and its generator.

``tests/test_migration.py`` replays it from
``tests/cassettes/test_migration/migration_session.yaml``, which
``scripts/make_migration_cassette.py`` wrote by running this same scenario against scripted
vendor responses. The turns:

1. Anthropic Messages (``claude-sonnet-4-5``, thinking on): "weather in Paris?" → thinking
   (signed) + text + ``tool_use`` → tool result → answer.             (requests 0, 1)
2. ``agent.model`` = OpenAI Responses (``gpt-5``): "And in Rome?" → encrypted reasoning item +
   ``function_call`` (``call_…|fc_…``) → tool result → answer.          (requests 2, 3)
3. ``agent.model`` = Gemini (``gemini-2.5-flash``): "Berlin and Vienna?" → a thought + two
   id-less ``functionCall``\\ s to the same function (thought signature on the first) → two
   results → answer.                                                  (requests 4, 5)
4. The transcript is saved to a session file, loaded back, and a **new** Agent continues on an
   OpenAI-compatible chat server that requires reasoning passed back (DeepSeek,
   ``compat.requiresReasoningContent``): ``reasoning_content`` + ``tool_calls`` → tool result →
   answer.                                                            (requests 6, 7)
5. ``agent.model`` = Amazon Bedrock (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``,
   ConverseStream): "And Madrid?" → signed ``reasoningContent`` + text + ``toolUse`` → tool
   result → answer.                                                   (requests 8, 9)
6. ``agent.model`` = Mistral (``magistral-medium-latest``): "Oslo and Athens?" → magistral
   ``thinking`` chunks + two ``tool_calls`` with Mistral's 9-character ids → two results →
   answer.                                                            (requests 10, 11)
7. ``agent.model`` = Azure OpenAI Responses (``gpt-5`` on the deployment endpoint
   ``.../openai/deployments/gpt5-travel``, ``api-version`` by default): "Which is coldest?
   Check Dublin." → encrypted reasoning item + ``function_call`` → result → answer.
                                                                      (requests 12, 13)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pi_sdk
from pi_sdk import Agent, Model, get_model
from pi_sdk._agent.session import Session, load_session, save_session
from pi_sdk._wire.agent_types import AgentMessage

CASSETTE_NAME = "test_migration/migration_session"
CASSETTE = Path(__file__).resolve().parents[1] / "cassettes" / f"{CASSETTE_NAME}.yaml"

SYSTEM_PROMPT = "You are a concise travel assistant. Use get_weather for current conditions."
PROMPTS = (
    "What's the weather in Paris right now?",
    "And in Rome?",
    "How about Berlin and Vienna?",
    "Which of these is warmest? Check Lisbon too.",
    "And Madrid?",
    "Now Oslo and Athens, please.",
    "Which city is coldest so far? Check Dublin too.",
)
WEATHER = {
    "Paris": "18 °C, sunny",
    "Rome": "24 °C, clear",
    "Berlin": "12 °C, light rain",
    "Vienna": "15 °C, cloudy",
    "Lisbon": "26 °C, sunny",
    "Madrid": "22 °C, sunny",
    "Oslo": "6 °C, windy",
    "Athens": "28 °C, hot and sunny",
    "Dublin": "9 °C, drizzle",
}
AZURE_DEPLOYMENT_URL = "https://pi-mig-eastus2.openai.azure.com/openai/deployments/gpt5-travel"
"""The Azure hop's ``base_url``: a deployment endpoint (``api-version`` in the query)."""
ISOLATED_ENV = (
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_BEDROCK_SKIP_AUTH",
    "AZURE_OPENAI_BASE_URL",
    "AZURE_OPENAI_API_VERSION",
    "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
)
"""Variables that would change where a hop goes (region, endpoint, api-version): unset while
the scenario runs, for the recording and its replay alike."""

DEEPSEEK = Model(
    id="deepseek-reasoner",
    name="DeepSeek Reasoner",
    api="openai-completions",
    provider="deepseek",
    compat={"requiresReasoningContent": True},
    base_url="https://api.deepseek.com",
    reasoning=True,
    input=["text"],
    context_window=128_000,
    max_tokens=32_000,
)


@pi_sdk.tool
async def get_weather(city: str) -> str:
    """Return the current weather of a city.

    Args:
        city: The city name, e.g. "Paris".
    """
    return f"{city}: {WEATHER[city]}"


def models() -> tuple[Model, ...]:
    """The seven models in migration order.

    Anthropic, OpenAI Responses, Gemini, the chat server (the session is saved before it),
    Bedrock, Mistral, Azure OpenAI Responses.
    """
    azure = get_model("azure-openai-responses", "gpt-5")
    return (
        get_model("anthropic", "claude-sonnet-4-5"),
        get_model("openai", "gpt-5"),
        get_model("google", "gemini-2.5-flash"),
        DEEPSEEK,
        get_model("amazon-bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        get_model("mistral", "magistral-medium-latest"),
        azure.model_copy(update={"base_url": AZURE_DEPLOYMENT_URL}),
    )


def as_json(messages: Any) -> list[Any]:
    """Messages as their exact wire JSON (opaque fields included)."""
    return [json.loads(json.dumps(m.model_dump(mode="json"))) for m in messages]


@dataclass
class MigrationRun:
    """What the scenario produced."""

    agent: Agent
    """The agent that continued from the session file (its transcript is the whole session)."""
    transcripts: list[list[Any]]
    """The transcript's JSON after each provider's turn, in :func:`models` order."""
    saved: list[AgentMessage]
    """The transcript that was written to the session file (after the Gemini turn)."""
    loaded: Session
    """The session file, loaded back."""
    session_path: Path


def _agent(model: Model, **fields: Any) -> Agent:
    """The travel assistant on ``model`` (medium thinking, sequential get_weather calls)."""
    return Agent(
        model=model,
        system_prompt=SYSTEM_PROMPT,
        thinking_level="medium",
        tools=[get_weather],
        tool_execution="sequential",
        **fields,
    )


async def run_migration(folder: Path) -> MigrationRun:
    """Run the seven-provider conversation; the session file is written in ``folder``."""
    anthropic, responses, gemini, chat, *after_chat = models()
    agent = _agent(anthropic)
    transcripts: list[list[Any]] = []
    for model, prompt in zip((anthropic, responses, gemini), PROMPTS, strict=False):
        agent.model = model
        await agent.prompt(prompt)
        transcripts.append(as_json(agent.messages))

    session_path = folder / "migration.jsonl"
    saved = list(agent.messages)
    save_session(session_path, saved, metadata={"model": {"provider": "google", "id": gemini.id}})
    loaded = load_session(session_path)

    resumed = _agent(chat, messages=loaded.messages)
    await resumed.prompt(PROMPTS[3])
    transcripts.append(as_json(resumed.messages))
    for model, prompt in zip(after_chat, PROMPTS[4:], strict=True):
        resumed.model = model
        await resumed.prompt(prompt)
        transcripts.append(as_json(resumed.messages))
    return MigrationRun(resumed, transcripts, saved, loaded, session_path)
