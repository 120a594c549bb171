"""The generated models.json files: shape, consistency, and facts checked against the source.

The files are read as plain JSON so this runs before (and without) pi_sdk's Model type.
Spot facts were read from @mariozechner/pi-ai 0.58.3 dist/models.generated.js (Mistral: 0.73.1,
which has that provider); when a pinned version in scripts/generate_models.py moves, re-verify
them against the new source.
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
}
# Files generated from another pi-ai release than the others (scripts/generate_models.py
# OUTPUT_VERSIONS): name -> version.
OTHER_RELEASE = {"mistral": "0.73.1"}
# provider -> (package file, api, base URL)
PROVIDERS = {
    "anthropic": ("anthropic", "anthropic-messages", "https://api.anthropic.com"),
    "openai": ("openai", "openai-responses", "https://api.openai.com/v1"),
    "cerebras": ("openai", "openai-completions", "https://api.cerebras.ai/v1"),
    "groq": ("openai", "openai-completions", "https://api.groq.com/openai/v1"),
    "huggingface": ("openai", "openai-completions", "https://router.huggingface.co/v1"),
    "openrouter": ("openai", "openai-completions", "https://openrouter.ai/api/v1"),
    "xai": ("openai", "openai-completions", "https://api.x.ai/v1"),
    "zai": ("openai", "openai-completions", "https://api.z.ai/api/coding/paas/v4"),
    "google": (
        "google",
        "google-generative-ai",
        "https://generativelanguage.googleapis.com/v1beta",
    ),
    "google-vertex": ("google", "google-vertex", "https://{location}-aiplatform.googleapis.com"),
    "mistral": ("mistral", "mistral-conversations", "https://api.mistral.ai"),
}
# Model counts in pi-ai 0.58.3 (they match the pi spec's section 7.1 table).
COUNTS = {
    "anthropic": 23,
    "openai": 38,
    "cerebras": 4,
    "groq": 15,
    "huggingface": 18,
    "openrouter": 243,
    "xai": 25,
    "zai": 9,
    "google": 24,
    "google-vertex": 12,
    "mistral": 28,  # pi-ai 0.73.1
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
OPTIONAL = {"headers": dict, "compat": dict}
COST_KEYS = {"input", "output", "cacheRead", "cacheWrite"}


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


def test_every_file_cites_the_same_source() -> None:
    same = [name for name in FILES if name not in OTHER_RELEASE]
    assert len({json.dumps(load(name)["source"], sort_keys=True) for name in same}) == 1
    for name, version in OTHER_RELEASE.items():
        source = load(name)["source"]
        assert source["version"] == version
        assert source["integrity"] != load(same[0])["source"]["integrity"]


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: f"{m['provider']}/{m['id']}")
def test_model_fields(model: dict[str, Any]) -> None:
    assert set(REQUIRED) <= set(model) <= set(REQUIRED) | set(OPTIONAL)
    for field, kind in {**REQUIRED, **OPTIONAL}.items():
        if field in model:
            assert isinstance(model[field], kind), field
    assert model["id"] and model["name"] and model["baseUrl"]
    assert model["input"] in (["text"], ["text", "image"])
    assert set(model["cost"]) == COST_KEYS
    for price in model["cost"].values():
        assert isinstance(price, (int, float)) and not isinstance(price, bool)
        assert price >= 0
    assert model["contextWindow"] > 0
    assert model["maxTokens"] > 0
    assert all(isinstance(v, str) for v in model.get("headers", {}).values())


@pytest.mark.parametrize("name", FILES)
def test_providers_apis_and_base_urls_are_consistent(name: str) -> None:
    seen: set[tuple[str, str]] = set()
    for model in load(name)["models"]:
        file, api, base_url = PROVIDERS[model["provider"]]
        assert file == name
        assert (model["api"], model["baseUrl"]) == (api, base_url), model["id"]
        key = (model["provider"], model["id"])
        assert key not in seen, f"duplicate id {key}"
        seen.add(key)


def test_model_counts_per_provider() -> None:
    counts: dict[str, int] = {}
    for model in ALL_MODELS:
        counts[model["provider"]] = counts.get(model["provider"], 0) + 1
    assert counts == COUNTS


def cost(model: dict[str, Any]) -> tuple[float, float, float, float]:
    c = model["cost"]
    return (c["input"], c["output"], c["cacheRead"], c["cacheWrite"])


def test_spot_facts_anthropic() -> None:
    opus = find("anthropic", "claude-opus-4-6")
    assert opus["name"] == "Claude Opus 4.6"
    assert cost(opus) == (5, 25, 0.5, 6.25)
    assert (opus["contextWindow"], opus["maxTokens"]) == (1_000_000, 128_000)
    assert opus["reasoning"] is True and opus["input"] == ["text", "image"]
    sonnet = find("anthropic", "claude-sonnet-4-5")
    assert cost(sonnet) == (3, 15, 0.3, 3.75)
    assert (sonnet["contextWindow"], sonnet["maxTokens"]) == (200_000, 64_000)
    assert find("anthropic", "claude-3-5-haiku-20241022")["reasoning"] is False


def test_spot_facts_openai_and_compatible() -> None:
    gpt4o = find("openai", "gpt-4o")
    assert cost(gpt4o) == (2.5, 10, 1.25, 0)
    assert (gpt4o["contextWindow"], gpt4o["maxTokens"]) == (128_000, 16_384)
    assert gpt4o["reasoning"] is False
    gpt5 = find("openai", "gpt-5")
    assert cost(gpt5) == (1.25, 10, 0.125, 0)
    assert (gpt5["contextWindow"], gpt5["reasoning"]) == (400_000, True)
    assert find("openai", "o3-mini")["input"] == ["text"]
    zai_compat = {"supportsDeveloperRole": False, "thinkingFormat": "zai"}
    assert find("zai", "glm-4.6")["compat"] == zai_compat
    assert find("huggingface", "moonshotai/Kimi-K2.5")["compat"] == {"supportsDeveloperRole": False}
    assert cost(find("groq", "llama-3.3-70b-versatile")) == (0.59, 0.79, 0, 0)
    assert cost(find("xai", "grok-4")) == (3, 15, 0.75, 0)
    # pi stores OpenRouter's "price varies" sentinel (-1 $/token) as -1e6 $/M; we record 0.
    assert cost(find("openrouter", "openrouter/auto")) == (0, 0, 0, 0)


def test_spot_facts_google() -> None:
    pro = find("google", "gemini-2.5-pro")
    assert cost(pro) == (1.25, 10, 0.31, 0)
    assert (pro["contextWindow"], pro["maxTokens"]) == (1_048_576, 65_536)
    assert pro["reasoning"] is True
    vertex = find("google-vertex", "gemini-2.5-pro")
    assert cost(vertex) == (1.25, 10, 0.125, 0)
    assert find("google", "gemini-2.0-flash")["reasoning"] is False


def test_spot_facts_mistral() -> None:
    magistral = find("mistral", "magistral-medium-latest")
    assert magistral["reasoning"] is True
    large = find("mistral", "mistral-large-latest")
    assert large["api"] == "mistral-conversations"
    assert large["baseUrl"] == "https://api.mistral.ai"
    small = find("mistral", "mistral-small-latest")
    assert (small["name"], small["reasoning"], small["input"]) == (
        "Mistral Small (latest)",
        True,
        ["text", "image"],
    )
    assert cost(small) == (0.15, 0.6, 0, 0)
    assert (small["contextWindow"], small["maxTokens"]) == (256000, 256000)
    assert cost(find("mistral", "codestral-latest")) == (0.3, 0.9, 0, 0)


def test_generator_parses_the_source_literal_syntax() -> None:
    # The generator itself needs npm; its parser and shaping run offline.
    script = ROOT / "scripts/generate_models.py"
    spec = importlib.util.spec_from_file_location("generate_models", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
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
    assert list(model) == [
        "id",
        "name",
        "api",
        "provider",
        "baseUrl",
        "reasoning",
        "input",
        "cost",
        "contextWindow",
        "maxTokens",
        "compat",
    ]
    with pytest.raises(gen.SourceError):
        gen.parse_models("export const MODELS = { a: () => 1 };")
