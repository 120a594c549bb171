"""The generated models.json files: shape, consistency, and facts checked against the source.

The files are read as plain JSON so this runs before (and without) pi_sdk's Model type.
Counts and spot facts were read from @earendil-works/pi-ai 1.6.0 ``dist/providers/data/*.json``
(1,853 entries: 1,698 chat models, 74 image and 81 classifier models; of the chat models, the 10
``openai-codex-responses`` and 39 ``pi-messages`` ones are skipped: 1,649 kept, from 40
providers). Where ``npm ci --prefix tests/node`` installed that package (pinned by the lock file,
whose integrity must be the generator's), the generator is run on it and must give the committed
files byte for byte; elsewhere that test skips. When VERSION in scripts/generate_models.py moves,
re-verify the counts and facts against the new source.
"""

from __future__ import annotations

import hashlib
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
VERSION = "1.6.0"
INTEGRITY = "sha512-9hL+eygFDEiFp//cydeUfmFsKmEqpmvsNPb10Y1W8+m5K9O+sx1hMStfu6nukrBD5sl6mP4RykCYBBNEgsVLfw=="  # noqa: E501
NODE_DIR = ROOT / "tests/node"
INSTALLED = NODE_DIR / "node_modules/@earendil-works/pi-ai"
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
# (provider, api) -> the package file, where not the API's own (the generator's ROUTES)
ROUTED = {("azure", "openai-completions"): "azure"}


def generator() -> Any:
    # The generator itself needs npm; its shaping and routing run offline.
    script = ROOT / "scripts/generate_models.py"
    spec = importlib.util.spec_from_file_location("generate_models", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


# provider -> its models' one base URL: the generator's pins, and some read from the source
BASE_URLS = {
    **generator().BASE_URLS,
    "ant-ling": "https://api.ant-ling.com/v1",
    "baseten": "https://inference.baseten.co/v1",
    "cerebras": "https://api.cerebras.ai/v1",
    "deepseek": "https://api.deepseek.com",
    "groq": "https://api.groq.com/openai/v1",
    "huggingface": "https://router.huggingface.co/v1",
    "meta": "https://api.meta.ai/v1",
    "moonshotai": "https://api.moonshot.ai/v1",
    "nvidia": "https://integrate.api.nvidia.com/v1",
    "qwen-token-plan": "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
    "together": "https://api.together.ai/v1",
    "vercel-ai-gateway": "https://ai-gateway.vercel.sh",
    "xai": "https://api.x.ai/v1",
    "zai": "https://api.z.ai/api/coding/paas/v4",
    "zai-coding-cn": "https://open.bigmodel.cn/api/coding/paas/v4",
}
# (provider, api) -> model count in pi-ai 1.6.0's data (1,649 chat models on pi-sdk's 8 APIs)
COUNTS = {
    ("amazon-bedrock", "bedrock-converse-stream"): 208,
    ("ant-ling", "openai-completions"): 3,
    ("anthropic", "anthropic-messages"): 18,
    ("azure", "azure-openai-responses"): 47,
    ("azure", "openai-completions"): 1,
    ("baseten", "openai-completions"): 15,
    ("cerebras", "openai-completions"): 2,
    ("cloudflare-ai-gateway", "anthropic-messages"): 15,
    ("cloudflare-ai-gateway", "openai-completions"): 20,
    ("cloudflare-ai-gateway", "openai-responses"): 28,
    ("cloudflare-workers-ai", "openai-completions"): 20,
    ("deepseek", "openai-completions"): 2,
    ("fireworks", "anthropic-messages"): 16,
    ("fireworks", "openai-completions"): 11,
    ("github-copilot", "anthropic-messages"): 11,
    ("github-copilot", "openai-completions"): 6,
    ("github-copilot", "openai-responses"): 18,
    ("google", "google-generative-ai"): 26,
    ("google-vertex", "google-vertex"): 17,
    ("groq", "openai-completions"): 7,
    ("huggingface", "openai-completions"): 87,
    ("kimi-coding", "openai-completions"): 6,
    ("meta", "openai-responses"): 7,
    ("minimax", "anthropic-messages"): 4,
    ("minimax-cn", "anthropic-messages"): 4,
    ("mistral", "mistral-conversations"): 34,
    ("moonshotai", "openai-completions"): 6,
    ("moonshotai-cn", "openai-completions"): 6,
    ("nvidia", "openai-completions"): 12,
    ("openai", "openai-responses"): 47,
    ("opencode", "anthropic-messages"): 18,
    ("opencode", "google-generative-ai"): 9,
    ("opencode", "openai-completions"): 24,
    ("opencode", "openai-responses"): 33,
    ("opencode-go", "anthropic-messages"): 6,
    ("opencode-go", "google-generative-ai"): 1,
    ("opencode-go", "openai-completions"): 21,
    ("opencode-go", "openai-responses"): 5,
    ("openrouter", "anthropic-messages"): 20,
    ("openrouter", "openai-completions"): 397,
    ("qwen-token-plan", "openai-completions"): 20,
    ("qwen-token-plan-cn", "openai-completions"): 20,
    ("qwen-token-plan-individual", "openai-completions"): 13,
    ("qwen-token-plan-individual-cn", "openai-completions"): 13,
    ("together", "openai-completions"): 16,
    ("vercel-ai-gateway", "anthropic-messages"): 305,
    ("xai", "openai-responses"): 4,
    ("xiaomi", "openai-completions"): 3,
    ("xiaomi-token-plan-ams", "openai-completions"): 2,
    ("xiaomi-token-plan-cn", "openai-completions"): 2,
    ("xiaomi-token-plan-sgp", "openai-completions"): 2,
    ("zai", "openai-completions"): 7,
    ("zai-coding-cn", "openai-completions"): 4,
}
# wire API -> chat models (pi-ai 1.6.0; the delta's "chat models per API")
PER_API = {
    "anthropic-messages": 417,
    "openai-completions": 748,
    "openai-responses": 142,
    "bedrock-converse-stream": 208,
    "google-generative-ai": 36,
    "google-vertex": 17,
    "mistral-conversations": 34,
    "azure-openai-responses": 47,
}
NEW_PROVIDERS = {  # pi-ai 1.6's new providers with chat models on pi-sdk's APIs, and the rename
    "ant-ling",
    "baseten",
    "meta",
    "nvidia",
    "qwen-token-plan",
    "qwen-token-plan-cn",
    "qwen-token-plan-individual",
    "qwen-token-plan-individual-cn",
    "together",
    "zai-coding-cn",
    "azure",  # was azure-openai-responses
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
    "type": str,
}
OPTIONAL = {
    "headers": dict,
    "compat": dict,
    "thinkingLevelMap": dict,
    "inputLimits": dict,
    "promptCache": dict,
}
COST_KEYS = {"input", "output", "cacheRead", "cacheWrite"}
THINKING_LEVELS = {"off", "minimal", "low", "medium", "high", "xhigh", "max"}


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
    assert source["name"] == "@earendil-works/pi-ai"
    assert source["files"] == "dist/providers/data/*.json"
    assert source["url"].startswith("https://www.npmjs.com/package/@earendil-works/pi-ai/v/")
    assert source["version"] in source["url"]
    assert "generated_at" not in source  # regeneration must be byte-for-byte deterministic
    assert text == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    keys = [(m["provider"], m["id"]) for m in doc["models"]]
    assert keys == sorted(keys)


def test_every_file_cites_the_pinned_release() -> None:
    gen = generator()
    # the registry's dist.integrity of @earendil-works/pi-ai 1.6.0 (and tests/node's lock file's)
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
    assert model["type"] == "chat"  # image and classifier models are left out
    # only Azure has no base URL in the catalog (the endpoint comes from the environment)
    assert model["baseUrl"] or model["provider"] == "azure"
    assert model["input"] in (["text"], ["text", "image"])
    cost = model["cost"]
    assert COST_KEYS <= set(cost) <= COST_KEYS | {"tiers"}
    for rates in [cost, *cost.get("tiers", [])]:
        for key in COST_KEYS:
            price = rates[key]
            assert isinstance(price, (int, float)) and not isinstance(price, bool)
            assert price >= 0
    for tier in cost.get("tiers", []):
        assert set(tier) == COST_KEYS | {"inputTokensAbove"} and tier["inputTokensAbove"] > 0
    assert model["contextWindow"] > 0
    assert model["maxTokens"] > 0
    assert all(isinstance(v, str) for v in model.get("headers", {}).values())
    levels = model.get("thinkingLevelMap", {})
    assert set(levels) <= THINKING_LEVELS
    assert all(v is None or isinstance(v, str) for v in levels.values())
    assert set(model.get("promptCache", {})) <= {"short", "long"}
    assert set(model.get("inputLimits", {})) <= {"maxRequestBytes", "images"}


@pytest.mark.parametrize("name", FILES)
def test_each_model_is_in_the_package_of_its_api(name: str) -> None:
    seen: set[tuple[str, str]] = set()
    for model in load(name)["models"]:
        home = ROUTED.get((model["provider"], model["api"]), API_FILES[model["api"]])
        assert home == name, model["id"]
        if model["provider"] in BASE_URLS:
            assert model["baseUrl"] == BASE_URLS[model["provider"]], model["id"]
        key = (model["provider"], model["id"])
        assert key not in seen, f"duplicate id {key}"
        seen.add(key)


def test_model_counts_per_provider_and_api() -> None:
    counts: dict[tuple[str, str], int] = {}
    per_api: dict[str, int] = {}
    for model in ALL_MODELS:
        key = (model["provider"], model["api"])
        counts[key] = counts.get(key, 0) + 1
        per_api[model["api"]] = per_api.get(model["api"], 0) + 1
    assert counts == COUNTS
    assert per_api == PER_API
    assert sum(counts.values()) == 1649
    providers = {provider for provider, _ in counts}
    assert len(providers) == 40  # openai-codex, radius (other APIs) and typesafe are skipped
    assert NEW_PROVIDERS <= providers and "azure-openai-responses" not in providers
    assert {name: len(load(name)["models"]) for name in FILES} == {
        "anthropic": 417,
        "openai": 889,
        "google": 53,
        "mistral": 34,
        "bedrock": 208,
        "azure": 48,
    }


def test_the_new_model_fields_are_carried() -> None:
    """pi-ai 1.6.0's tiers, prompt-cache lifetimes, input limits and ``max`` level, on our APIs."""
    assert sum("tiers" in m["cost"] for m in ALL_MODELS) == 279
    assert sum("promptCache" in m for m in ALL_MODELS) == 18
    assert sum("inputLimits" in m for m in ALL_MODELS) == 1243
    assert sum("max" in m.get("thinkingLevelMap", {}) for m in ALL_MODELS) == 760


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
    assert opus["thinkingLevelMap"] == {"max": "max"}  # was {"xhigh": "max"} in 0.73.1
    sonnet = find("anthropic", "claude-sonnet-4-5")
    assert cost(sonnet) == (3, 15, 0.3, 3.75)
    assert (sonnet["contextWindow"], sonnet["maxTokens"]) == (200_000, 64_000)
    assert sonnet["promptCache"] == {"short": 300, "long": 3600}
    assert sonnet["inputLimits"]["maxRequestBytes"] == 33_554_432
    assert "thinkingLevelMap" not in sonnet
    fable = find("anthropic", "claude-fable-5")
    assert fable["thinkingLevelMap"] == {"off": None, "xhigh": "xhigh", "max": "max"}
    kimi = find("fireworks", "accounts/fireworks/models/kimi-k3")
    assert (kimi["api"], kimi["name"]) == ("openai-completions", "Kimi K3")
    assert cost(kimi) == (3, 15, 0.3, 0)


def test_spot_facts_openai_and_compatible() -> None:
    gpt4o = find("openai", "gpt-4o")
    assert limits(gpt4o) == ((2.5, 10, 1.25, 0), 128_000, 16_384, False)
    gpt5 = find("openai", "gpt-5")
    assert cost(gpt5) == (1.25, 10, 0.125, 0)
    assert (gpt5["contextWindow"], gpt5["reasoning"]) == (400_000, True)
    gpt55 = find("openai", "gpt-5.5")
    assert gpt55["cost"]["tiers"] == [
        {"inputTokensAbove": 272_000, "input": 10, "output": 45, "cacheRead": 1, "cacheWrite": 0}
    ]
    assert gpt55["thinkingLevelMap"]["off"] == "none" and gpt55["thinkingLevelMap"]["max"] is None
    assert find("openai", "o3-mini")["input"] == ["text"]
    zai_compat = find("zai", "glm-4.7")["compat"]
    assert (zai_compat["thinkingFormat"], zai_compat["zaiToolStream"]) == ("zai", True)
    assert find("huggingface", "moonshotai/Kimi-K2.5")["compat"] == {"supportsStrictMode": True}
    assert cost(find("groq", "llama-3.3-70b-versatile")) == (0.59, 0.79, 0, 0)
    grok = find("xai", "grok-4.7")
    assert (grok["api"], cost(grok)) == ("openai-responses", (2, 6, 0.5, 0))  # was completions
    # pi stores OpenRouter's "price varies" sentinel (-1 $/token) as -1e6 $/M; we record 0.
    assert cost(find("openrouter", "openrouter/auto")) == (0, 0, 0, 0)
    deepseek = find("deepseek", "deepseek-v4-pro")
    assert deepseek["compat"]["thinkingFormat"] == "deepseek"
    assert deepseek["thinkingLevelMap"] == {
        "minimal": None,
        "low": None,
        "medium": None,
        "high": "high",
        "max": "max",
    }
    workers = find("cloudflare-workers-ai", "@cf/meta/llama-4-scout-17b-16e-instruct")
    assert workers["baseUrl"] == (
        "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
    )
    assert find("nvidia", "nvidia/cosmos-reason2-8b")["api"] == "openai-completions"
    azure_chat = find("azure", "deepseek-v4-pro")
    assert (azure_chat["api"], azure_chat["baseUrl"]) == ("openai-completions", "")


def test_spot_facts_google() -> None:
    pro = find("google", "gemini-2.5-pro")
    assert limits(pro) == ((1.25, 10, 0.125, 0), 1_048_576, 65_536, True)
    # Google's published long-context price: $2.50 in / $15 out above 200k input tokens
    assert pro["cost"]["tiers"] == [
        {
            "inputTokensAbove": 200_000,
            "input": 2.5,
            "output": 15,
            "cacheRead": 0.25,
            "cacheWrite": 0,
        }
    ]
    vertex = find("google-vertex", "gemini-2.5-pro")
    assert cost(vertex) == (1.25, 10, 0.125, 0)
    assert "tiers" not in vertex["cost"]
    assert find("google", "gemma-4-31b-it")["provider"] == "google"
    assert (
        find("opencode", "gemini-4-neon")["baseUrl"]
        == "https://opencode.ai/inference/google/v1beta"
    )


# --- the generator, offline ---------------------------------------------------------------


def data_model(provider: str, model_id: str, api: str, base_url: str, **extra: Any) -> Any:
    return {
        "id": model_id,
        "name": model_id,
        "api": api,
        "provider": provider,
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
        "type": "chat",
        **extra,
    }


def package_files(groups_by_provider: dict[str, dict[str, dict[str, Any]]]) -> dict[str, bytes]:
    """Data files as the package has them: one per provider, and the manifest of their sha256."""
    gen = generator()
    files = {
        f"{gen.DATA_DIR}{provider}.json": json.dumps(groups).encode()
        for provider, groups in groups_by_provider.items()
    }
    manifest = {
        "schemaVersion": gen.MANIFEST_SCHEMA,
        "files": {
            name.removeprefix(gen.DATA_DIR): hashlib.sha256(body).hexdigest()
            for name, body in files.items()
        },
    }
    return {**files, gen.MANIFEST: json.dumps(manifest).encode()}


def sample_source() -> dict[str, bytes]:
    gen = generator()
    gateway = "https://gateway.example/{ACCOUNT}"
    other = {
        api: {f"chat:m-{api}": data_model("other", f"m-{api}", api, "https://other.example")}
        for api in gen.api_outputs()
        if api not in ("anthropic-messages", "openai-responses")
    }
    tiered = data_model("gateway", "m-claude", "anthropic-messages", gateway)
    tiered["cost"]["tiers"] = [
        {
            "inputTokensAbove": 200000,
            "input": -1000000,
            "output": 4,
            "cacheRead": 0,
            "cacheWrite": 0,
        }
    ]
    tiered["thinkingLevelMap"] = {"off": None, "max": "max"}
    tiered["promptCache"] = {"short": 300, "long": 3600}
    return package_files(
        {
            "gateway": {
                "anthropic-messages": {"chat:m-claude": tiered},
                "openai-responses": {
                    "chat:m-gpt": data_model("gateway", "m-gpt", "openai-responses", gateway),
                    "image:m-paint": {"type": "image", "id": "m-paint"},
                },
                "openai-codex-responses": {
                    "chat:m-codex": data_model("gateway", "m-codex", "openai-codex-responses", "")
                },
                "typesafe-system-one": {"classifier:m-judge": {"type": "classifier"}},
            },
            "azure": {
                "openai-completions": {
                    "chat:m-deploy": data_model("azure", "m-deploy", "openai-completions", "")
                },
            },
            "other": other,
        }
    )


def test_the_generator_routes_each_chat_model_to_the_package_of_its_api() -> None:
    gen = generator()
    files, skipped = gen.build(sample_source())
    assert skipped == {"openai-codex-responses": 1, "image": 1, "classifier": 1}
    docs = {path: json.loads(text) for path, text in files.items()}
    ids = {path: [m["id"] for m in doc["models"]] for path, doc in docs.items()}
    assert ids["providers/anthropic/pi_sdk_anthropic/models.json"] == ["m-claude"]
    assert ids["providers/openai/pi_sdk_openai/models.json"] == ["m-gpt", "m-openai-completions"]
    assert ids["providers/azure/pi_sdk_azure/models.json"] == [
        "m-deploy",
        "m-azure-openai-responses",
    ]
    claude = docs["providers/anthropic/pi_sdk_anthropic/models.json"]["models"][0]
    # a negative price (OpenRouter's "varies") becomes 0, in tiers too; fields in MODEL_FIELDS order
    assert claude["cost"]["tiers"][0]["input"] == 0
    assert list(claude) == [f for f in gen.MODEL_FIELDS if f in claude]
    assert (claude["thinkingLevelMap"], claude["type"]) == ({"off": None, "max": "max"}, "chat")
    assert docs["providers/azure/pi_sdk_azure/models.json"]["source"] == gen.source_info()


def test_the_generator_refuses_what_it_does_not_know_or_cannot_trust() -> None:
    gen = generator()
    source = sample_source()
    tampered = dict(source)
    name = f"{gen.DATA_DIR}gateway.json"
    tampered[name] = source[name].replace(b'"m-gpt"', b'"m-gpt2"')
    with pytest.raises(gen.SourceError, match="does not match its sha256"):
        gen.build(tampered)
    unlisted = {**source, f"{gen.DATA_DIR}extra.json": b"{}"}
    with pytest.raises(gen.SourceError, match="lists"):
        gen.build(unlisted)
    groups = {
        p.removeprefix(gen.DATA_DIR).removesuffix(".json"): json.loads(b)
        for p, b in source.items()
        if p != gen.MANIFEST
    }
    groups["gateway"]["some-new-api"] = groups["gateway"].pop("openai-codex-responses")
    with pytest.raises(gen.SourceError, match="'some-new-api' is in neither"):
        gen.build(package_files(groups))
    groups["gateway"].pop("some-new-api")
    groups["anthropic"] = {
        "anthropic-messages": {
            "chat:x": data_model("anthropic", "x", "anthropic-messages", "https://elsewhere")
        }
    }
    with pytest.raises(gen.SourceError, match="baseUrl is https://api.anthropic.com"):
        gen.build(package_files(groups))
    groups["anthropic"]["anthropic-messages"] = {"sound:x": {}}
    with pytest.raises(gen.SourceError, match="not a chat, image or classifier model"):
        gen.build(package_files(groups))


INSTALLED_REASON = (
    "@earendil-works/pi-ai 1.6.0 is not installed in tests/node (npm ci --prefix tests/node):"
    " the regeneration check skips"
)


@pytest.mark.skipif(not (INSTALLED / "package.json").is_file(), reason=INSTALLED_REASON)
def test_the_pinned_package_regenerates_the_committed_files_byte_for_byte() -> None:
    """The offline ``--check``: npm ci verified the package against the lock file's integrity."""
    gen = generator()
    lock = json.loads((NODE_DIR / "package-lock.json").read_text("utf-8"))
    locked = lock["packages"]["node_modules/@earendil-works/pi-ai"]
    assert (locked["version"], locked["integrity"]) == (gen.VERSION, gen.INTEGRITY)
    files, skipped = gen.build(gen.read_installed(INSTALLED))
    for path, text in files.items():
        assert (ROOT / path).read_text(encoding="utf-8") == text, path
    assert skipped == {
        "openai-codex-responses": 10,
        "pi-messages": 39,
        "image": 74,
        "classifier": 81,
    }
    assert sum(len(json.loads(t)["models"]) for t in files.values()) + sum(skipped.values()) == 1853
