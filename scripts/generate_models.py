#!/usr/bin/env python3
"""Generate the provider packages' models.json files from pi-mono's published catalog.

The facts (ids, prices, context windows, base URLs, compat flags) come from the
``dist/models.generated.js`` file inside the npm package ``@mariozechner/pi-ai``
at the version pinned below. The tarball is fetched with ``npm pack``, checked
against the pinned integrity hash, and the file is read straight out of the
tarball. It is parsed as data by a small literal parser here; no JavaScript runs.

Each model goes to the package that speaks its wire API (``OUTPUTS``); the models of an API no
package speaks (``SKIPPED_APIS``) are left out and counted; an API the script does not know
fails the run.

Usage:
    python scripts/generate_models.py            # write the models.json files, print the counts
    python scripts/generate_models.py --check    # regenerate in memory, diff, exit 1 on drift
    python scripts/generate_models.py --tarball path/to/pi-ai-0.73.1.tgz   # skip npm

To move to a newer catalog, change VERSION and INTEGRITY (``npm view
@mariozechner/pi-ai@<version> dist.integrity``), run the script and review the diff.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "@mariozechner/pi-ai"
VERSION = "0.73.1"  # the pi-ai release of the catalog (the pi spec ports 0.58.3)
INTEGRITY = "sha512-Jh4lXawZYuC83HzSIYuVum9NBqJD49i4JOt3H96cGW/924cwJMOyUs1Mv/e4QPzTXnzrqMoGviNQnvGgSu1LSg=="  # noqa: E501
SOURCE_FILE = "dist/models.generated.js"
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
# APIs of the source that no pi-sdk package speaks: their models are left out (and counted).
SKIPPED_APIS: dict[str, str] = {
    "openai-codex-responses": "ChatGPT-subscription Codex backend: pi-sdk has no Codex provider",
}
# provider -> the base URL every one of its models must have (a first-party vendor's endpoint;
# a release that moves one fails here and is reviewed). Other providers take pi's value as is.
BASE_URLS: dict[str, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "google": "https://generativelanguage.googleapis.com/v1beta",
    "google-vertex": "https://{location}-aiplatform.googleapis.com",
    "mistral": "https://api.mistral.ai",
    # pi-ai lists Azure models without a base URL: the endpoint comes from the environment/call.
    "azure-openai-responses": "",
}

MODEL_FIELDS = (
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
    "headers",
    "compat",
    "thinkingLevelMap",  # pi-ai 0.73: per level the vendor's value, null = unsupported
)
OPTIONAL_FIELDS = {"headers", "compat", "thinkingLevelMap"}
THINKING_LEVELS = {"off", "minimal", "low", "medium", "high", "xhigh"}
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite")


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


def read_source(tarball: Path) -> str:
    data = tarball.read_bytes()
    actual = sri_sha512(data)
    if actual != INTEGRITY:
        raise SourceError(f"{tarball}: integrity {actual} does not match the pinned {INTEGRITY}")
    # Members are read into memory; nothing from the tarball is written to disk.
    with tarfile.open(tarball, "r:gz") as tar:

        def member(name: str) -> bytes:
            try:
                f = tar.extractfile(f"package/{name}")
            except KeyError:
                f = None
            if f is None:
                raise SourceError(f"{tarball} has no {name}")
            return f.read()

        manifest = json.loads(member("package.json"))
        if (manifest.get("name"), manifest.get("version")) != (PACKAGE, VERSION):
            raise SourceError(f"{tarball} is {manifest.get('name')}@{manifest.get('version')}")
        return member(SOURCE_FILE).decode("utf-8")


# --- parsing: a JavaScript object-literal subset ------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<punct>[{}\[\]:,])
    """,
    re.VERBOSE | re.DOTALL,
)
_CONSTANTS = {"true": True, "false": False, "null": None}


def _tokens(text: str) -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            line = text.count("\n", 0, pos) + 1
            raise SourceError(f"{SOURCE_FILE}:{line}: unexpected {text[pos : pos + 20]!r}")
        kind, raw = m.lastgroup, m.group()
        pos = m.end()
        if kind in ("ws", "comment"):
            continue
        if kind == "string":  # pi emits JSON.stringify'd strings, so JSON rules apply
            out.append(("value", json.loads(raw), m.start()))
        elif kind == "number":
            number = int(raw) if re.fullmatch(r"-?\d+", raw) else float(raw)
            out.append(("value", number, m.start()))
        else:
            out.append((kind, raw, m.start()))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def fail(self, what: str) -> SourceError:
        pos = self.toks[self.i][2] if self.i < len(self.toks) else len(self.text)
        return SourceError(f"{SOURCE_FILE}:{self.text.count(chr(10), 0, pos) + 1}: {what}")

    def peek(self) -> tuple[str, Any, int]:
        if self.i >= len(self.toks):
            raise self.fail("unexpected end of input")
        return self.toks[self.i]

    def take(self, kind: str, raw: Any = None) -> Any:
        tok = self.peek()
        if tok[0] != kind or (raw is not None and tok[1] != raw):
            raise self.fail(f"expected {raw or kind}, found {tok[1]!r}")
        self.i += 1
        return tok[1]

    def value(self) -> Any:
        kind, raw, _ = self.peek()
        if kind == "value":
            self.i += 1
            return raw
        if kind == "ident" and raw in _CONSTANTS:
            self.i += 1
            return _CONSTANTS[raw]
        if (kind, raw) == ("punct", "{"):
            return self.obj()
        if (kind, raw) == ("punct", "["):
            return self.arr()
        raise self.fail(f"unsupported value {raw!r}")

    def obj(self) -> dict[str, Any]:
        self.take("punct", "{")
        out: dict[str, Any] = {}
        while self.peek()[:2] != ("punct", "}"):
            kind, key, _ = self.peek()
            if kind not in ("ident", "value") or not isinstance(key, str):
                raise self.fail(f"bad object key {key!r}")
            self.i += 1
            self.take("punct", ":")
            if key in out:
                raise self.fail(f"duplicate key {key!r}")
            out[key] = self.value()
            if self.peek()[:2] != ("punct", "}"):
                self.take("punct", ",")
        self.take("punct", "}")
        return out

    def arr(self) -> list[Any]:
        self.take("punct", "[")
        out: list[Any] = []
        while self.peek()[:2] != ("punct", "]"):
            out.append(self.value())
            if self.peek()[:2] != ("punct", "]"):
                self.take("punct", ",")
        self.take("punct", "]")
        return out


def parse_models(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    "Parse `export const MODELS = {...};` into provider -> id -> model."
    m = re.search(r"^export const MODELS\s*=\s*", text, re.MULTILINE)
    if m is None:
        raise SourceError(f"{SOURCE_FILE}: no `export const MODELS =`")
    body = text[m.end() :]
    end = body.rfind("};")
    if end < 0:
        raise SourceError(f"{SOURCE_FILE}: MODELS is not terminated by `}};`")
    parser = _Parser(body[: end + 1])
    models = parser.obj()
    if parser.i != len(parser.toks):
        raise parser.fail("trailing content after MODELS")
    return models


# --- shaping and validation ---------------------------------------------------------------


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def shape_model(provider: str, key: str, raw: dict[str, Any]) -> dict[str, Any]:
    where = f"{provider}/{key}"
    unknown = sorted(set(raw) - set(MODEL_FIELDS))
    if unknown:
        # A newer pi-ai may add fields the pi-sdk Model does not know; say so, keep the rest.
        print(f"warning: {where}: dropping unknown fields {unknown}", file=sys.stderr)
    missing = [f for f in MODEL_FIELDS if f not in raw and f not in OPTIONAL_FIELDS]
    if missing:
        raise SourceError(f"{where}: missing {missing}")
    base_url = BASE_URLS.get(provider)
    if isinstance(raw.get("cost"), dict):
        # OpenRouter reports -1 $/token for routers whose price depends on the routed model
        # (openrouter/auto); pi multiplies that into -1e6 $/M. A negative price would make
        # calculate_cost report negative dollars, so record 0, which in pi's catalog already
        # means "no published price".
        raw = {**raw, "cost": {c: 0 if _number(v) and v < 0 else v for c, v in raw["cost"].items()}}
    checks = {
        "id matches its key": raw["id"] == key,
        "provider matches its key": raw["provider"] == provider,
        f"baseUrl is {base_url}": base_url is None or raw["baseUrl"] == base_url,
        "name and baseUrl are strings": all(isinstance(raw[f], str) for f in ("name", "baseUrl")),
        "reasoning is a bool": isinstance(raw["reasoning"], bool),
        "input is text or text+image": raw["input"] in (["text"], ["text", "image"]),
        "cost has the four prices": isinstance(raw["cost"], dict)
        and sorted(raw["cost"]) == sorted(COST_FIELDS)
        and all(_number(raw["cost"][c]) and raw["cost"][c] >= 0 for c in COST_FIELDS),
        "contextWindow is a positive int": isinstance(raw["contextWindow"], int)
        and raw["contextWindow"] > 0,
        "maxTokens is a positive int": isinstance(raw["maxTokens"], int) and raw["maxTokens"] > 0,
        "headers is a str->str dict": "headers" not in raw
        or all(isinstance(k, str) and isinstance(v, str) for k, v in raw["headers"].items()),
        "compat is a dict": "compat" not in raw or isinstance(raw["compat"], dict),
        "thinkingLevelMap maps levels to a string or null": "thinkingLevelMap" not in raw
        or (
            isinstance(raw["thinkingLevelMap"], dict)
            and set(raw["thinkingLevelMap"]) <= THINKING_LEVELS
            and all(v is None or isinstance(v, str) for v in raw["thinkingLevelMap"].values())
        ),
    }
    failed = [name for name, ok in checks.items() if not ok]
    if failed:
        raise SourceError(f"{where}: {', '.join(failed)}")
    out = {f: raw[f] for f in MODEL_FIELDS if f in raw}
    out["cost"] = {c: raw["cost"][c] for c in COST_FIELDS}
    return out


def api_outputs() -> dict[str, str]:
    "Wire API -> the output file whose package speaks it."
    return {api: path for path, apis in OUTPUTS.items() for api in apis}


def build(text: str) -> tuple[dict[str, str], dict[str, int]]:
    """From models.generated.js text: output path -> file text, and skipped API -> model count.

    Raises SourceError for a model of an API in neither OUTPUTS nor SKIPPED_APIS.
    """
    catalog = parse_models(text)
    paths = api_outputs()
    source = {
        "name": PACKAGE,
        "version": VERSION,
        "url": f"https://www.npmjs.com/package/{PACKAGE}/v/{VERSION}",
        "file": SOURCE_FILE,
        "license": LICENSE,
        "integrity": INTEGRITY,
    }
    models: dict[str, list[dict[str, Any]]] = {path: [] for path in OUTPUTS}
    skipped: dict[str, int] = {}
    for provider, entries in catalog.items():
        if not isinstance(entries, dict):
            raise SourceError(f"{SOURCE_FILE}: provider {provider!r} is not an object")
        for key, raw in entries.items():
            api = raw.get("api") if isinstance(raw, dict) else None
            if api in SKIPPED_APIS:
                skipped[api] = skipped.get(api, 0) + 1
            elif api in paths:
                models[paths[api]].append(shape_model(provider, key, raw))
            else:
                raise SourceError(
                    f"{provider}/{key}: api {api!r} is in neither OUTPUTS nor SKIPPED_APIS"
                )
    files: dict[str, str] = {}
    for path, found in models.items():
        if not found:
            raise SourceError(f"{SOURCE_FILE} has no model for {path} ({OUTPUTS[path]})")
        found.sort(key=lambda m: (m["provider"], m["id"]))
        doc = {"source": source, "models": found}
        files[path] = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return files, skipped


def summary(files: dict[str, str], skipped: dict[str, int]) -> str:
    "Per output file: the model count per provider and per API; then the skipped APIs."
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
    lines.extend(
        f"skipped {api}: {n} models ({SKIPPED_APIS[api]})" for api, n in sorted(skipped.items())
    )
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
            text = read_source(args.tarball)
        else:
            with tempfile.TemporaryDirectory(prefix="pi-ai-") as tmp:
                text = read_source(fetch_tarball(Path(tmp)))
        files, skipped = build(text)
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
