"""The generated models.json files: shape, consistency, and facts checked against the source.

The files are read as plain JSON so this runs before (and without) pi_sdk's Model type.
Counts and spot facts were read from @mariozechner/pi-ai 0.73.1 dist/models.generated.js
(969 models, 31 providers; the 10 ``openai-codex-responses`` models are skipped); when
VERSION in scripts/generate_models.py moves, re-verify them against the new source.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "anthropic": ROOT / "providers/anthropic/pi_sdk_anthropic/models.json",
    "openai": ROOT / "providers/openai/pi_sdk_openai/models.json",
    "google": ROOT / "providers/google/pi_sdk_google/models.json",
    "mistral": ROOT / "providers/mistral/pi_sdk_mistral/models.json",
    "bedrock": ROOT / "providers/bedrock/pi_sdk_bedrock/models.json",
    "azure": ROOT / "providers/azure/pi_sdk_azure/models.json",
}
VERSION = "0.73.1"
INTEGRITY = "sha512-Jh4lXawZYuC83HzSIYuVum9NBqJD49i4JOt3H96cGW/924cwJMOyUs1Mv/e4QPzTXnzrqMoGviNQnvGgSu1LSg=="  # noqa: E501
# wire API -> the package file that speaks it (a model lives where its API is served)
API_FILES = {
    "anthropic-messages": "anthropic",
    "openai-completions": "openai",
    "openai-responses": "openai",
    "google-generative-ai": "google",
    "google-vertex": "google",
    "mistral-conversations": "mistral",
    "bedrock-converse-stream": "bedrock",
    "azure-openai-responses": "azure",
}


def generator() -> Any:
    # The generator itself needs npm; its parser, shaping and routing run offline.
    script = ROOT / "scripts/generate_models.py"
    spec = importlib.util.spec_from_file_location("generate_models", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


# provider -> its models' one base URL: the generator's pins, and some read from the source
BASE_URLS = {
    **generator().BASE_URLS,
    "cerebras": "https://api.cerebras.ai/v1",
    "deepseek": "https://api.deepseek.com",
    "fireworks": "https://api.fireworks.ai/inference",
    "groq": "https://api.groq.com/openai/v1",
    "huggingface": "https://router.huggingface.co/v1",
    "moonshotai": "https://api.moonshot.ai/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "vercel-ai-gateway": "https://ai-gateway.vercel.sh",
    "xai": "https://api.x.ai/v1",
    "zai": "https://api.z.ai/api/coding/paas/v4",
}
# (provider, api) -> model count in pi-ai 0.73.1 (959 models: 969 less 10 openai-codex-responses)
COUNTS = {
    ("amazon-bedrock", "bedrock-converse-stream"): 93,
    ("anthropic", "anthropic-messages"): 23,
    ("azure-openai-responses", "azure-openai-responses"): 42,
    ("cerebras", "openai-completions"): 4,
    ("cloudflare-ai-gateway", "anthropic-messages"): 15,
    ("cloudflare-ai-gateway", "openai-completions"): 4,
    ("cloudflare-ai-gateway", "openai-responses"): 16,
    ("cloudflare-workers-ai", "openai-completions"): 8,
    ("deepseek", "openai-completions"): 2,
    ("fireworks", "anthropic-messages"): 19,
    ("github-copilot", "anthropic-messages"): 7,
    ("github-copilot", "openai-completions"): 7,
    ("github-copilot", "openai-responses"): 12,
    ("google", "google-generative-ai"): 27,
    ("google-vertex", "google-vertex"): 13,
    ("groq", "openai-completions"): 18,
    ("huggingface", "openai-completions"): 22,
    ("kimi-coding", "anthropic-messages"): 2,
    ("minimax", "anthropic-messages"): 2,
    ("minimax-cn", "anthropic-messages"): 2,
    ("mistral", "mistral-conversations"): 28,
    ("moonshotai", "openai-completions"): 7,
    ("moonshotai-cn", "openai-completions"): 7,
    ("openai", "openai-responses"): 42,
    ("opencode", "anthropic-messages"): 11,
    ("opencode", "google-generative-ai"): 2,
    ("opencode", "openai-completions"): 9,
    ("opencode", "openai-responses"): 16,
    ("opencode-go", "openai-completions"): 12,
    ("openrouter", "openai-completions"): 275,
    ("vercel-ai-gateway", "anthropic-messages"): 162,
    ("xai", "openai-completions"): 25,
    ("xiaomi", "anthropic-messages"): 5,
    ("xiaomi-token-plan-ams", "anthropic-messages"): 5,
    ("xiaomi-token-plan-cn", "anthropic-messages"): 5,
    ("xiaomi-token-plan-sgp", "anthropic-messages"): 5,
    ("zai", "openai-completions"): 5,
}
REQUIRED = {
    "id": str,
    "name": str,
    "api": str,
    "provider": str,
    "baseUrl": str,
    "reasoning": bool,
    "input": list,
    "cost": dict,
    "contextWindow": int,
    "maxTokens": int,
}
OPTIONAL = {"headers": dict, "compat": dict, "thinkingLevelMap": dict}
COST_KEYS = {"input", "output", "cacheRead", "cacheWrite"}
THINKING_LEVELS = {"off", "minimal", "low", "medium", "high", "xhigh"}


def load(name: str) -> dict[str, Any]:
    return json.loads(FILES[name].read_text(encoding="utf-8"))


ALL_MODELS = [m for name in FILES for m in load(name)["models"]]


def find(provider: str, model_id: str) -> dict[str, Any]:
    matches = [m for m in ALL_MODELS if m["provider"] == provider and m["id"] == model_id]
    assert len(matches) == 1, f"{provider}/{model_id}"
    return matches[0]


@pytest.mark.parametrize("name", FILES)
def test_file_has_source_and_is_canonical(name: str) -> None:
    text = FILES[name].read_text(encoding="utf-8")
    doc = json.loads(text)
    assert set(doc) == {"source", "models"}
    source = doc["source"]
    assert source["name"] == "@mariozechner/pi-ai"
    assert source["file"] == "dist/models.generated.js"
    assert source["url"].startswith("https://www.npmjs.com/package/@mariozechner/pi-ai/v/")
    assert source["version"] in source["url"]
    assert "generated_at" not in source  # regeneration must be byte-for-byte deterministic
    assert text == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    keys = [(m["provider"], m["id"]) for m in doc["models"]]
    assert keys == sorted(keys)


def test_every_file_cites_the_pinned_release() -> None:
    gen = generator()
    # npm's package-lock integrity of @mariozechner/pi-ai 0.73.1
    assert (gen.VERSION, gen.INTEGRITY) == (VERSION, INTEGRITY)
    for name in FILES:
        source = load(name)["source"]
        assert (source["version"], source["integrity"]) == (VERSION, INTEGRITY), name
        assert source["url"].endswith(f"/v/{VERSION}")


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: f"{m['provider']}/{m['id']}")
def test_model_fields(model: dict[str, Any]) -> None:
    assert set(REQUIRED) <= set(model) <= set(REQUIRED) | set(OPTIONAL)
    for field, kind in {**REQUIRED, **OPTIONAL}.items():
        if field in model:
            assert isinstance(model[field], kind), field
    assert model["id"] and model["name"]
    # only Azure has no base URL in the catalog (the endpoint comes from the environment)
    assert model["baseUrl"] or model["provider"] == "azure-openai-responses"
    assert model["input"] in (["text"], ["text", "image"])
    assert set(model["cost"]) == COST_KEYS
    for price in model["cost"].values():
        assert isinstance(price, (int, float)) and not isinstance(price, bool)
        assert price >= 0
    assert model["contextWindow"] > 0
    assert model["maxTokens"] > 0
    assert all(isinstance(v, str) for v in model.get("headers", {}).values())
    levels = model.get("thinkingLevelMap", {})
    assert set(levels) <= THINKING_LEVELS
    assert all(v is None or isinstance(v, str) for v in levels.values())


@pytest.mark.parametrize("name", FILES)
def test_each_model_is_in_the_package_of_its_api(name: str) -> None:
    seen: set[tuple[str, str]] = set()
    for model in load(name)["models"]:
        assert API_FILES[model["api"]] == name, model["id"]
        if model["provider"] in BASE_URLS:
            assert model["baseUrl"] == BASE_URLS[model["provider"]], model["id"]
        key = (model["provider"], model["id"])
        assert key not in seen, f"duplicate id {key}"
        seen.add(key)


def test_model_counts_per_provider_and_api() -> None:
    counts: dict[tuple[str, str], int] = {}
    for model in ALL_MODELS:
        key = (model["provider"], model["api"])
        counts[key] = counts.get(key, 0) + 1
    assert counts == COUNTS
    assert sum(counts.values()) == 959
    assert len({provider for provider, _ in counts}) == 30  # openai-codex is skipped


def cost(model: dict[str, Any]) -> tuple[float, float, float, float]:
    c = model["cost"]
    return (c["input"], c["output"], c["cacheRead"], c["cacheWrite"])


def limits(model: dict[str, Any]) -> tuple[Any, ...]:
    """``(cost, contextWindow, maxTokens, reasoning)`` of a catalog entry."""
    return (cost(model), model["contextWindow"], model["maxTokens"], model["reasoning"])


def test_spot_facts_anthropic() -> None:
    opus = find("anthropic", "claude-opus-4-6")
    assert opus["name"] == "Claude Opus 4.6"
    assert limits(opus) == ((5, 25, 0.5, 6.25), 1_000_000, 128_000, True)
    assert opus["input"] == ["text", "image"]
    assert opus["thinkingLevelMap"] == {"xhigh": "max"}
    sonnet = find("anthropic", "claude-sonnet-4-5")
    assert cost(sonnet) == (3, 15, 0.3, 3.75)
    assert (sonnet["contextWindow"], sonnet["maxTokens"]) == (200_000, 64_000)
    assert "thinkingLevelMap" not in sonnet
    assert find("anthropic", "claude-3-5-haiku-20241022")["reasoning"] is False
    fireworks = find("fireworks", "accounts/fireworks/models/deepseek-v3p1")
    assert (fireworks["api"], fireworks["name"]) == ("anthropic-messages", "DeepSeek V3.1")
    assert cost(fireworks) == (0.56, 1.68, 0, 0)


def test_spot_facts_openai_and_compatible() -> None:
    gpt4o = find("openai", "gpt-4o")
    assert limits(gpt4o) == ((2.5, 10, 1.25, 0), 128_000, 16_384, False)
    gpt5 = find("openai", "gpt-5")
    assert cost(gpt5) == (1.25, 10, 0.125, 0)
    assert (gpt5["contextWindow"], gpt5["reasoning"]) == (400_000, True)
    assert gpt5["thinkingLevelMap"] == {"off": None}  # gpt-5 cannot turn reasoning off
    assert find("openai", "o3-mini")["input"] == ["text"]
    zai_compat = {"supportsDeveloperRole": False, "thinkingFormat": "zai", "zaiToolStream": True}
    assert find("zai", "glm-4.7")["compat"] == zai_compat
    assert find("huggingface", "moonshotai/Kimi-K2.5")["compat"] == {"supportsDeveloperRole": False}
    assert cost(find("groq", "llama-3.3-70b-versatile")) == (0.59, 0.79, 0, 0)
    assert cost(find("xai", "grok-4")) == (3, 15, 0.75, 0)
    # pi stores OpenRouter's "price varies" sentinel (-1 $/token) as -1e6 $/M; we record 0.
    assert cost(find("openrouter", "openrouter/auto")) == (0, 0, 0, 0)
    deepseek = find("deepseek", "deepseek-v4-flash")
    assert deepseek["compat"] == {
        "requiresReasoningContentOnAssistantMessages": True,
        "thinkingFormat": "deepseek",
    }
    assert deepseek["thinkingLevelMap"] == {
        "minimal": None,
        "low": None,
        "medium": None,
        "high": "high",
        "xhigh": "max",
    }
    workers = find("cloudflare-workers-ai", "@cf/meta/llama-4-scout-17b-16e-instruct")
    assert workers["baseUrl"] == (
        "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
    )
    assert workers["compat"] == {"sendSessionAffinityHeaders": True}
    copilot = find("github-copilot", "gpt-4o")
    assert copilot["api"] == "openai-completions"
    assert copilot["headers"]["Copilot-Integration-Id"] == "vscode-chat"


def test_spot_facts_google() -> None:
    pro = find("google", "gemini-2.5-pro")
    assert limits(pro) == ((1.25, 10, 0.125, 0), 1_048_576, 65_536, True)
    vertex = find("google-vertex", "gemini-2.5-pro")
    assert cost(vertex) == (1.25, 10, 0.125, 0)
    assert vertex["name"] == "Gemini 2.5 Pro (Vertex)"
    assert find("google", "gemini-2.0-flash")["reasoning"] is False
    assert find("opencode", "gemini-3.1-pro")["baseUrl"] == "https://opencode.ai/zen/v1"


def test_generator_parses_the_source_literal_syntax() -> None:
    gen = generator()
    source = """// generated
export const MODELS = {
    "openrouter": {
        "openrouter/auto": {
            id: "openrouter/auto",
            name: "Auto \\"Router\\"",
            api: "openai-completions",
            provider: "openrouter",
            baseUrl: "https://openrouter.ai/api/v1",
            compat: { "supportsStore": false, "reasoningEffortMap": {} },
            reasoning: true,
            input: ["text", "image"],
            cost: { input: -1000000, output: -1e6, cacheRead: 0.075, cacheWrite: 0, },
            contextWindow: 2000000,
            maxTokens: 4096,
        },
    },
};
//# sourceMappingURL=models.generated.js.map
"""
    raw = gen.parse_models(source)["openrouter"]["openrouter/auto"]
    assert raw["name"] == 'Auto "Router"'
    assert raw["compat"] == {"supportsStore": False, "reasoningEffortMap": {}}
    model = gen.shape_model("openrouter", "openrouter/auto", raw)
    assert model["cost"] == {"input": 0, "output": 0, "cacheRead": 0.075, "cacheWrite": 0}
    # pi-ai's field order (MODEL_FIELDS); absent optional fields are left out.
    assert list(model) == [f for f in gen.MODEL_FIELDS if f not in {"headers", "thinkingLevelMap"}]
    assert list(model)[:5] == ["id", "name", "api", "provider", "baseUrl"]
    with pytest.raises(gen.SourceError):
        gen.parse_models("export const MODELS = { a: () => 1 };")


def source_model(provider: str, model_id: str, api: str, base_url: str) -> str:
    return f"""        "{model_id}": {{
            id: "{model_id}", name: "{model_id}", api: "{api}", provider: "{provider}",
            baseUrl: "{base_url}", reasoning: false, input: ["text"],
            cost: {{ input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }},
            contextWindow: 1000, maxTokens: 100,
        }},
"""


def test_generator_routes_each_model_to_the_package_of_its_api() -> None:
    gen = generator()
    gateway = "https://gateway.example/{ACCOUNT}"
    source = (
        "export const MODELS = {\n"
        '    "gateway": {\n'
        + source_model("gateway", "m-claude", "anthropic-messages", gateway)
        + source_model("gateway", "m-gpt", "openai-responses", gateway)
        + source_model("gateway", "m-codex", "openai-codex-responses", gateway)
        + "    },\n"
        '    "other": {\n'
        + "".join(
            source_model("other", f"m-{api}", api, "https://other.example")
            for api in gen.api_outputs()
            if api not in ("anthropic-messages", "openai-responses")
        )
        + "    },\n};\n"
    )
    files, skipped = gen.build(source)
    assert skipped == {"openai-codex-responses": 1}
    ids = {path: [m["id"] for m in json.loads(text)["models"]] for path, text in files.items()}
    assert ids["providers/anthropic/pi_sdk_anthropic/models.json"] == ["m-claude"]
    assert ids["providers/openai/pi_sdk_openai/models.json"] == [
        "m-gpt",
        "m-openai-completions",
    ]
    assert sum(len(v) for v in ids.values()) == len(gen.api_outputs())
    with pytest.raises(gen.SourceError, match="'some-new-api' is in neither"):
        gen.build(source.replace("openai-codex-responses", "some-new-api"))
    with pytest.raises(gen.SourceError, match="baseUrl is https://api.anthropic.com"):
        gen.build(source.replace('"gateway"', '"anthropic"'))
