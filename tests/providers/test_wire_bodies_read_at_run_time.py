"""Each wire API sends the same body for a setting built at run time as for its literal.

A caller's settings come from files, forms and JSON: equal to the literals the other tests
write, but other string objects. Every string setting a body depends on (cache retention,
reasoning level, tool choice, foreign reasoning, output mode) is sent here once as the
literal and once built (``_support.strings.built``); the two bodies must be equal, so a rule
that compares by identity (``is``) where it means equality shows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, get_args

import pytest
from _support.strings import built
from pi_sdk_openai.completions._compat import ThinkingFormat
from test_tool_choice import APIS, TOOL

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    UserMessage,
)
from pi_sdk.options import Output

FOREIGN = AssistantMessage(
    content=[
        ThinkingContent(thinking="weighing it", thinking_signature="sig"),
        TextContent(text="ok"),
    ],
    api="other-api",
    provider="elsewhere",
    model="other-model",
)
CTX = Context(
    system_prompt="be brief",
    messages=[UserMessage(content="hi"), FOREIGN, UserMessage(content="and now?")],
    tools=[TOOL],
)
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

SETTINGS: list[tuple[str, str]] = [
    *(("cache_retention", v) for v in ("none", "short", "long")),
    *(("reasoning", v) for v in ("off", "minimal", "low", "medium", "high", "xhigh")),
    *(("tool_choice", v) for v in ("auto", "none", "required")),
    *(("foreign_reasoning", v) for v in ("drop", "text", "tagged")),
    *(("output", v) for v in ("auto", "native", "tool")),
]


def _options(name: str, value: str) -> StreamOptions:
    if name == "output":
        return StreamOptions(session_id="s-1", output=Output(SCHEMA, name="city", mode=value))  # type: ignore[arg-type]
    return StreamOptions(session_id="s-1", **{name: value})


BEDROCK = "bedrock-converse-stream"
OPENAI_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Variant:
    """A model of one API, as a models.json would give it."""

    api: str
    model_id: str | None = None
    compat: dict[str, Any] | None = None
    base_url: str = "https://vendor.test/v1"
    provider: str | None = None

    def body(self, options: StreamOptions, compat: dict[str, Any] | None = None) -> Any:
        build, provider, default_id, _ = APIS[self.api]
        model = Model(
            id=self.model_id or default_id,
            api=self.api,
            provider=provider,
            base_url=self.base_url,
            reasoning=True,
            max_tokens=8192,
            compat=compat if compat is not None else self.compat,
        )
        if self.provider is not None:
            # Validation turns a known provider name into pydantic's own literal object; a
            # copy with an update (how a caller renames a model's provider) keeps the caller's.
            model = model.model_copy(update={"provider": self.provider})
        return build(model, CTX, options)


# Each API's plain model, and the models whose rules read more settings: Claude on Bedrock
# takes cache points and a native xhigh effort; a model without structured outputs forces a
# tool; OpenAI's own endpoint takes a cache key; explicit cache mode names retention "none".
VARIANTS = [
    *(Variant(api) for api in APIS),
    Variant(BEDROCK, "us.anthropic.claude-opus-4-7-v1:0"),
    Variant(BEDROCK, compat={"supportsStructuredOutputs": False}),
    Variant("anthropic-messages", "claude-opus-4-5"),
    Variant("openai-completions", base_url=OPENAI_URL),
    Variant("openai-responses", base_url=OPENAI_URL),
    Variant("openai-responses", compat={"supportsExplicitPromptCacheMode": True}),
]


@pytest.mark.parametrize(("name", "value"), SETTINGS, ids=[f"{n}={v}" for n, v in SETTINGS])
@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_a_setting_built_at_run_time_sends_the_body_its_literal_sends(
    variant: Variant, name: str, value: str
) -> None:
    literal = variant.body(_options(name, value))
    assert variant.body(_options(name, built(value))) == literal


# Compat settings a models.json gives (keys and values parsed from JSON, not literals).
COMPATS: list[tuple[str, dict[str, Any]]] = [
    *(("openai-completions", {"thinkingFormat": f}) for f in get_args(ThinkingFormat)),
    ("openai-completions", {"cacheControlFormat": "anthropic"}),
    *(("openai-completions", {"promptCacheKeyMode": m}) for m in ("auto", "enabled", "disabled")),
    *(("openai-responses", {"promptCacheKeyMode": m}) for m in ("auto", "enabled", "disabled")),
    ("openai-responses", {"supportsExplicitPromptCacheMode": True}),
    ("anthropic-messages", {"sessionAffinityFormat": "openrouter"}),
    ("anthropic-messages", {"allowedFallbackModels": [{"model": "claude-y"}]}),
]


def _built_compat(compat: dict[str, Any]) -> dict[str, Any]:
    return {built(k): built(v) if isinstance(v, str) else v for k, v in compat.items()}


@pytest.mark.parametrize("retention", ["none", "short", "long"])
@pytest.mark.parametrize(
    ("api", "compat"), COMPATS, ids=[f"{a}-{next(iter(c.items()))}" for a, c in COMPATS]
)
def test_a_compat_read_from_a_models_file_sends_the_body_its_literal_sends(
    api: str, compat: dict[str, Any], retention: str
) -> None:
    options = StreamOptions(session_id="s-1", reasoning="high", cache_retention=retention)  # type: ignore[arg-type]
    variant = Variant(api, compat=compat)
    assert variant.body(options, _built_compat(compat)) == variant.body(options)


# Provider names a models.json gives: each switches the API's vendor rules on.
PROVIDERS = [
    *(
        Variant("openai-completions", provider=p)
        for p in ("together", "openrouter", "nvidia", "cerebras", "deepseek", "xai", "groq")
    ),
    Variant("openai-completions", provider="opencode"),
    Variant("openai-completions", provider="openai"),
    Variant("openai-completions", "anthropic/claude-x", provider="openrouter"),
    Variant("openai-responses", provider="openrouter"),
    Variant("anthropic-messages", provider="openrouter"),
]


@pytest.mark.parametrize("variant", PROVIDERS, ids=repr)
def test_a_provider_name_read_from_a_models_file_sends_the_body_its_literal_sends(
    variant: Variant,
) -> None:
    options = StreamOptions(session_id="s-1", reasoning="high")
    assert variant.provider is not None
    renamed = dataclasses.replace(variant, provider=built(variant.provider))
    assert renamed.body(options) == variant.body(options)
