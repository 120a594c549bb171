#!/usr/bin/env python3
"""Generate the provider packages' models.json files from pi-mono's published catalog.

The facts (ids, prices and price tiers, context windows, input limits, prompt-cache lifetimes,
base URLs, compat flags) come from the per-provider data files ``dist/providers/data/*.json``
inside the npm package ``@earendil-works/pi-ai`` at the version pinned below. Each file is
``{"<api>": {"chat:<id>" | "image:<id>" | "classifier:<id>": <model>}}``. The tarball is fetched
with ``npm pack``, checked against the pinned integrity hash (the registry's sha512), and the
files are read straight out of it as JSON; no JavaScript runs.

Only chat models are kept: image-generation and classifier models (pi-ai 1.6 ``ImageModel``,
``ClassifierModel``) have no pi-sdk API and are counted. Each chat model goes to the package that
speaks its wire API (``OUTPUTS``), or to the package a ``ROUTES`` entry names for its provider
and API; the models of an API no package speaks (``SKIPPED_APIS``) are left out and counted; an
API the script does not know fails the run. The data is copied as is, but for a negative price
(recorded as 0) and the compat flags an API refuses today (``UNREAD_COMPAT``).

Usage:
    python scripts/generate_models.py            # write the models.json files, print the counts
    python scripts/generate_models.py --check    # regenerate in memory, diff, exit 1 on drift
    python scripts/generate_models.py --tarball path/to/pi-ai-1.6.0.tgz   # skip npm

To move to a newer catalog, change VERSION and INTEGRITY (``npm view
@earendil-works/pi-ai@<version> dist.integrity``), run the script and review the diff.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PACKAGE = "@earendil-works/pi-ai"
VERSION = "1.6.0"  # the pi-ai release of the catalog (pi-ai 0.73.1 before issue 27)
INTEGRITY = "sha512-9hL+eygFDEiFp//cydeUfmFsKmEqpmvsNPb10Y1W8+m5K9O+sx1hMStfu6nukrBD5sl6mP4RykCYBBNEgsVLfw=="  # noqa: E501
DATA_DIR = "dist/providers/data/"
MANIFEST = f"{DATA_DIR}.manifest.json"  # {"schemaVersion", "files": {name: sha256 hex}, ...}
MANIFEST_SCHEMA = 6
LICENSE = "MIT"

ROOT = Path(__file__).resolve().parent.parent

# Output file -> the wire APIs its package speaks. A model goes to the package that speaks its
# API, whoever serves it: a provider whose models use several APIs (opencode, github-copilot,
# cloudflare-ai-gateway) is split across packages, so a model is listed exactly when the package
# that can call it is installed.
OUTPUTS: dict[str, tuple[str, ...]] = {
    "providers/anthropic/pi_sdk_anthropic/models.json": ("anthropic-messages",),
    "providers/openai/pi_sdk_openai/models.json": ("openai-completions", "openai-responses"),
    "providers/google/pi_sdk_google/models.json": ("google-generative-ai", "google-vertex"),
    "providers/mistral/pi_sdk_mistral/models.json": ("mistral-conversations",),
    "providers/bedrock/pi_sdk_bedrock/models.json": ("bedrock-converse-stream",),
    "providers/azure/pi_sdk_azure/models.json": ("azure-openai-responses",),
}
# (provider, api) -> the output file, where a provider's models of an API need another package
# than the API's own.
ROUTES: dict[tuple[str, str], str] = {
    # Azure's Chat Completions deployments need Azure's endpoint, deployment and key:
    # pi-sdk-azure's own openai-completions implementation serves them (pi-ai 1.6 azureProvider).
    ("azure", "openai-completions"): "providers/azure/pi_sdk_azure/models.json",
}
# APIs of the source that no pi-sdk package speaks: their chat models are left out (and counted).
SKIPPED_APIS: dict[str, str] = {
    "openai-codex-responses": "ChatGPT-subscription Codex backend: pi-sdk has no Codex provider",
    "pi-messages": "pi's own gateway API (Radius): no pi-sdk provider yet (issue 27, item 5)",
}
# Kinds of catalog entries that are not chat models: left out (and counted).
SKIPPED_KINDS: dict[str, str] = {
    "image": "image generation (pi-ai 1.6 ImageModel): pi-sdk has none",
    "classifier": "classifiers (pi-ai 1.6 ClassifierModel): pi-sdk has none",
}
# API -> compat flags of the source that pi-sdk's implementation of that API refuses today (the
# Chat Completions compat resolver rejects a flag it does not read), left out of the catalog so
# the models that carry them stay callable. Remove an entry when the API reads the flag, then
# regenerate.
UNREAD_COMPAT: dict[str, frozenset[str]] = {}
# provider -> the base URL every one of its models must have (a first-party vendor's endpoint;
# a release that moves one fails here and is reviewed). Other providers take pi's value as is.
BASE_URLS: dict[str, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "google": "https://generativelanguage.googleapis.com/v1beta",
    "google-vertex": "https://{location}-aiplatform.googleapis.com",
    "mistral": "https://api.mistral.ai",
    # pi-ai lists Azure models without a base URL: the endpoint comes from the environment/call.
    "azure": "",
}

MODEL_FIELDS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "inputLimits",  # pi-ai 1.6: request bytes, image limits
    "cost",
    "contextWindow",
    "maxTokens",
    "headers",
    "compat",
    "thinkingLevelMap",  # per level the vendor's value, null = unsupported
    "promptCache",  # pi-ai 1.6: cache lifetime per retention, seconds
    "type",  # pi-ai 1.6: always "chat" here
)
OPTIONAL_FIELDS = {"headers", "compat", "thinkingLevelMap", "inputLimits", "promptCache"}
THINKING_LEVELS = {"off", "minimal", "low", "medium", "high", "xhigh", "max"}
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite")
TIER_FIELDS = ("inputTokensAbove", *COST_FIELDS)
INPUT_LIMIT_FIELDS = {"maxRequestBytes", "images"}
IMAGE_LIMIT_FIELDS = {"resize", "maxPerMessage", "maxPerRequest"}
RESIZE_FIELDS = {"maxWidth", "maxHeight", "maxBytes", "jpegQuality"}


class SourceError(Exception):
    "The source package is missing, tampered with, or in a shape this script does not understand."


# --- fetching ---------------------------------------------------------------------------


def sri_sha512(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def fetch_tarball(dest: Path) -> Path:
    spec = f"{PACKAGE}@{VERSION}"
    try:
        proc = subprocess.run(
            ["npm", "pack", spec, "--json", "--pack-destination", str(dest)],
            cwd=dest,
            check=True,
            capture_output=True,
            text=True,
        )
    except FileNotFoundError as exc:
        raise SourceError("npm is not installed; install Node.js or pass --tarball") from exc
    except subprocess.CalledProcessError as exc:
        raise SourceError(f"npm pack {spec} failed:\n{exc.stderr}") from exc
    filename = json.loads(proc.stdout)[0]["filename"]
    # npm < 9 names scoped tarballs differently; fall back to whatever landed in dest.
    path = dest / filename
    if not path.exists():
        found = sorted(dest.glob(f"*{VERSION}*.tgz"))
        if len(found) != 1:
            raise SourceError(f"npm pack produced no single tarball in {dest}")
        path = found[0]
    return path


def check_manifest(manifest: Mapping[str, Any], where: object) -> None:
    if (manifest.get("name"), manifest.get("version")) != (PACKAGE, VERSION):
        raise SourceError(f"{where} is {manifest.get('name')}@{manifest.get('version')}")


def read_tarball(tarball: Path) -> dict[str, bytes]:
    """The data files of the pinned tarball (path in the package -> bytes), integrity checked."""
    data = tarball.read_bytes()
    actual = sri_sha512(data)
    if actual != INTEGRITY:
        raise SourceError(f"{tarball}: integrity {actual} does not match the pinned {INTEGRITY}")
    # Members are read into memory; nothing from the tarball is written to disk.
    files: dict[str, bytes] = {}
    with tarfile.open(tarball, "r:gz") as tar:
        manifest: dict[str, Any] | None = None
        for info in tar.getmembers():
            name = info.name.removeprefix("package/")
            wanted = name == "package.json" or (
                name.startswith(DATA_DIR)
                and name.endswith(".json")
                and "/" not in name[len(DATA_DIR) :]
            )
            handle = tar.extractfile(info) if info.isfile() and wanted else None
            if handle is None:
                continue
            if name == "package.json":
                manifest = json.loads(handle.read())
            else:
                files[name] = handle.read()
    if manifest is None:
        raise SourceError(f"{tarball} has no package.json")
    check_manifest(manifest, tarball)
    return files


def read_installed(package_dir: Path) -> dict[str, bytes]:
    """The data files of an installed copy of the pinned package (``npm ci`` checked it against
    its lock file's integrity, which the caller compares with :data:`INTEGRITY`)."""
    check_manifest(json.loads((package_dir / "package.json").read_text("utf-8")), package_dir)
    return {
        f"{DATA_DIR}{path.name}": path.read_bytes()
        for path in sorted((package_dir / DATA_DIR).iterdir())
        if path.name.endswith(".json")
    }


# --- shaping and validation ---------------------------------------------------------------


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _no_negative(prices: dict[str, Any]) -> dict[str, Any]:
    # OpenRouter reports -1 $/token for routers whose price depends on the routed model
    # (openrouter/auto); pi multiplies that into -1e6 $/M. A negative price would make
    # calculate_cost report negative dollars, so record 0, which in pi's catalog already means
    # "no published price".
    return {c: 0 if c in COST_FIELDS and _number(v) and v < 0 else v for c, v in prices.items()}


def _prices(raw: Any, fields: tuple[str, ...]) -> bool:
    return (
        isinstance(raw, dict)
        and set(raw) == set(fields)
        and all(_number(raw[c]) and raw[c] >= 0 for c in fields)
    )


def _tiers_ok(tiers: Any) -> bool:
    return isinstance(tiers, list) and bool(tiers) and all(_prices(t, TIER_FIELDS) for t in tiers)


def _input_limits_ok(raw: Any) -> bool:
    if not isinstance(raw, dict) or not set(raw) <= INPUT_LIMIT_FIELDS:
        return False
    if "maxRequestBytes" in raw and not _count(raw["maxRequestBytes"]):
        return False
    images = raw.get("images", {})
    if not isinstance(images, dict) or not set(images) <= IMAGE_LIMIT_FIELDS:
        return False
    resize = images.get("resize", {})
    counts = [images[k] for k in ("maxPerMessage", "maxPerRequest") if k in images]
    return (
        isinstance(resize, dict)
        and set(resize) <= RESIZE_FIELDS
        and all(_count(v) for v in [*resize.values(), *counts])
    )


def shape_model(provider: str, api: str, key: str, raw: dict[str, Any]) -> dict[str, Any]:
    """One chat model of ``provider``'s data file, under ``api`` and ``key``, checked and shaped."""
    where = f"{provider}/{key}"
    unknown = sorted(set(raw) - set(MODEL_FIELDS))
    if unknown:
        # A newer pi-ai may add fields the pi-sdk Model does not know; say so, keep the rest.
        print(f"warning: {where}: dropping unknown fields {unknown}", file=sys.stderr)
    missing = [f for f in MODEL_FIELDS if f not in raw and f not in OPTIONAL_FIELDS]
    if missing:
        raise SourceError(f"{where}: missing {missing}")
    base_url = BASE_URLS.get(provider)
    cost = raw["cost"]
    if isinstance(cost, dict):
        cost = _no_negative(cost)
        if isinstance(cost.get("tiers"), list):
            cost["tiers"] = [_no_negative(t) if isinstance(t, dict) else t for t in cost["tiers"]]
    base = {c: cost.get(c) for c in COST_FIELDS} if isinstance(cost, dict) else None
    levels = raw.get("thinkingLevelMap", {})
    cache = raw.get("promptCache", {})
    checks = {
        "id matches its key": f"chat:{raw['id']}" == key,
        "api matches its group": raw["api"] == api,
        "provider matches its file": raw["provider"] == provider,
        "type is chat": raw["type"] == "chat",
        f"baseUrl is {base_url}": base_url is None or raw["baseUrl"] == base_url,
        "name and baseUrl are strings": all(isinstance(raw[f], str) for f in ("name", "baseUrl")),
        "reasoning is a bool": isinstance(raw["reasoning"], bool),
        "input is text or text+image": raw["input"] in (["text"], ["text", "image"]),
        "cost has the four prices, and tiers": isinstance(cost, dict)
        and set(cost) <= {*COST_FIELDS, "tiers"}
        and _prices(base, COST_FIELDS)
        and ("tiers" not in cost or _tiers_ok(cost["tiers"])),
        "contextWindow is a positive int": _count(raw["contextWindow"]),
        "maxTokens is a positive int": _count(raw["maxTokens"]),
        "headers is a str->str dict": "headers" not in raw
        or all(isinstance(k, str) and isinstance(v, str) for k, v in raw["headers"].items()),
        "compat is a dict": "compat" not in raw or isinstance(raw["compat"], dict),
        "thinkingLevelMap maps levels to a string or null": isinstance(levels, dict)
        and set(levels) <= THINKING_LEVELS
        and all(v is None or isinstance(v, str) for v in levels.values()),
        "inputLimits holds byte and image limits": "inputLimits" not in raw
        or _input_limits_ok(raw["inputLimits"]),
        "promptCache maps short/long to seconds": isinstance(cache, dict)
        and set(cache) <= {"short", "long"}
        and all(_number(v) and v > 0 for v in cache.values()),
    }
    failed = [name for name, ok in checks.items() if not ok]
    if failed:
        raise SourceError(f"{where}: {', '.join(failed)}")
    out = {f: raw[f] for f in MODEL_FIELDS if f in raw}
    out["cost"] = {c: cost[c] for c in (*COST_FIELDS, "tiers") if c in cost}
    unread = UNREAD_COMPAT.get(api, frozenset())
    if "compat" in out and unread & set(out["compat"]):
        out["compat"] = {k: v for k, v in out["compat"].items() if k not in unread}
        if not out["compat"]:
            del out["compat"]
    return out


def checked_against_manifest(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The data files, each checked against the package's manifest (sha256 per file), without it.

    Raises SourceError for a missing or unknown manifest, a file it lists that is missing or
    differs, or a data file it does not list.
    """
    if MANIFEST not in files:
        raise SourceError(f"the package has no {MANIFEST}")
    manifest = json.loads(files[MANIFEST])
    if manifest.get("schemaVersion") != MANIFEST_SCHEMA:
        raise SourceError(f"{MANIFEST}: schemaVersion {manifest.get('schemaVersion')!r} is not 6")
    listed: dict[str, str] = manifest["files"]
    data = {name: body for name, body in files.items() if name != MANIFEST}
    names = {name.removeprefix(DATA_DIR) for name in data}
    if names != set(listed):
        raise SourceError(f"{MANIFEST} lists {sorted(listed)}, the package has {sorted(names)}")
    for name, body in data.items():
        if hashlib.sha256(body).hexdigest() != listed[name.removeprefix(DATA_DIR)]:
            raise SourceError(f"{name} does not match its sha256 in {MANIFEST}")
    return data


def api_outputs() -> dict[str, str]:
    "Wire API -> the output file whose package speaks it."
    return {api: path for path, apis in OUTPUTS.items() for api in apis}


def source_info() -> dict[str, str]:
    return {
        "name": PACKAGE,
        "version": VERSION,
        "url": f"https://www.npmjs.com/package/{PACKAGE}/v/{VERSION}",
        "files": f"{DATA_DIR}*.json",
        "license": LICENSE,
        "integrity": INTEGRITY,
    }


def build(files: Mapping[str, bytes]) -> tuple[dict[str, str], dict[str, int]]:
    """From the data files: output path -> file text, and skipped API or kind -> model count.

    ``files`` maps a path in the package (``dist/providers/data/anthropic.json``) to its bytes,
    the manifest ``.manifest.json`` included (:func:`checked_against_manifest`).

    Raises SourceError for a file the manifest does not vouch for, a chat model of an API in
    neither OUTPUTS nor SKIPPED_APIS, a kind of entry this script does not know, or a model that
    fails its checks.
    """
    files = checked_against_manifest(files)
    paths = api_outputs()
    models: dict[str, list[dict[str, Any]]] = {path: [] for path in OUTPUTS}
    skipped: dict[str, int] = {}
    for name, data in sorted(files.items()):
        provider = name.removeprefix(DATA_DIR).removesuffix(".json")
        groups = json.loads(data)
        if not isinstance(groups, dict):
            raise SourceError(f"{name} is not an object of API groups")
        for api, entries in groups.items():
            if not isinstance(entries, dict):
                raise SourceError(f"{name}: API group {api!r} is not an object")
            for key, raw in entries.items():
                kind = str(key).partition(":")[0]
                if kind in SKIPPED_KINDS:
                    skipped[kind] = skipped.get(kind, 0) + 1
                elif kind != "chat" or not isinstance(raw, dict):
                    raise SourceError(f"{name}: {key!r} is not a chat, image or classifier model")
                elif api in SKIPPED_APIS:
                    skipped[api] = skipped.get(api, 0) + 1
                elif (path := ROUTES.get((provider, api), paths.get(api))) is not None:
                    models[path].append(shape_model(provider, api, key, raw))
                else:
                    raise SourceError(
                        f"{provider}/{key}: api {api!r} is in neither OUTPUTS nor SKIPPED_APIS"
                    )
    out: dict[str, str] = {}
    for path, found in models.items():
        if not found:
            raise SourceError(f"the package has no model for {path} ({OUTPUTS[path]})")
        found.sort(key=lambda m: (m["provider"], m["id"]))
        doc = {"source": source_info(), "models": found}
        out[path] = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return out, skipped


def summary(files: dict[str, str], skipped: dict[str, int]) -> str:
    "Per output file: the model count per provider and per API; then the skipped APIs and kinds."
    lines: list[str] = []
    total = 0
    for path, text in files.items():
        models = json.loads(text)["models"]
        total += len(models)
        counts: dict[tuple[str, str], int] = {}
        for model in models:
            key = (model["provider"], model["api"])
            counts[key] = counts.get(key, 0) + 1
        lines.append(f"{path}: {len(models)} models")
        lines.extend(f"  {p} ({a}): {n}" for (p, a), n in sorted(counts.items()))
    lines.append(f"total: {total} models")
    why = {**SKIPPED_APIS, **SKIPPED_KINDS}
    lines.extend(f"skipped {what}: {n} models ({why[what]})" for what, n in sorted(skipped.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory and diff against the committed files",
    )
    ap.add_argument(
        "--tarball",
        type=Path,
        help=f"use this {PACKAGE}@{VERSION} tarball instead of running npm pack",
    )
    args = ap.parse_args(argv)

    try:
        if args.tarball:
            source = read_tarball(args.tarball)
        else:
            with tempfile.TemporaryDirectory(prefix="pi-ai-") as tmp:
                source = read_tarball(fetch_tarball(Path(tmp)))
        files, skipped = build(source)
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if args.check:
        drift = False
        for path, new in files.items():
            target = ROOT / path
            old = target.read_text(encoding="utf-8") if target.exists() else ""
            if old != new:
                drift = True
                sys.stdout.writelines(
                    difflib.unified_diff(
                        old.splitlines(keepends=True),
                        new.splitlines(keepends=True),
                        f"a/{path}",
                        f"b/{path}",
                    )
                )
        print(
            ("catalog differs from " if drift else "catalog matches ") + f"{PACKAGE}@{VERSION}",
            file=sys.stderr,
        )
        return 1 if drift else 0

    for path, text in files.items():
        target = ROOT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    print(summary(files, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
