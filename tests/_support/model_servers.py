"""Loopback servers that list their models the way each OpenAI-compatible server does.

:class:`ModelServer` answers by path on a :class:`_support.loopback.LoopbackServer`, in one of
the shapes pi-sdk-openai reads (bodies shaped after each server's documentation):

* ``"openai"``: ``GET /v1/models`` (OpenAI's list: id, object, created, owned_by).
* ``"vllm"``: the same list with ``max_model_len`` and ``root``.
* ``"llama.cpp"``: the same list with ``meta`` (``n_ctx_train``...).
* ``"lm-studio"``: ``GET /api/v0/models`` (``type``, ``max_context_length``, ``state``), and
  the plain ``GET /v1/models``.
* ``"ollama"``: ``GET /api/tags`` and ``POST /api/show`` per model.

The list answer carries an ``ETag`` and a ``Last-Modified``; a request whose ``If-None-Match``
matches gets a 304. ``garbage`` replaces the list answer with an HTML page, invalid JSON or a
JSON document of the wrong shape; ``hang`` sends the headers and then nothing.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from typing import Any, Literal

from _support.loopback import HTML_ERROR_PAGE, LoopbackServer, Step, json_step

__all__ = ["SHAPES", "ModelServer", "closed_port_url"]

Shape = Literal["openai", "vllm", "llama.cpp", "lm-studio", "ollama"]
SHAPES: tuple[Shape, ...] = ("openai", "vllm", "llama.cpp", "lm-studio", "ollama")
Garbage = Literal["html", "invalid-json", "wrong-shape"]

ETAG = 'W/"models-1"'
LAST_MODIFIED = "Tue, 02 Dec 2025 10:15:00 GMT"

_OLLAMA_SHOW: dict[str, dict[str, Any]] = {
    "llama3.2:latest": {
        "parameters": 'stop "<|eot_id|>"',
        "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
        "capabilities": ["completion", "tools"],
    },
    "qwen3:8b": {
        "parameters": "num_ctx                        8192\ntemperature 0.6",
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960},
        "capabilities": ["completion", "tools", "thinking"],
    },
    "gemma3:4b": {
        "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131072},
        "capabilities": ["completion", "vision"],
    },
    "nomic-embed-text:latest": {
        "model_info": {"general.architecture": "nomic-bert", "nomic-bert.context_length": 2048},
        "capabilities": ["embedding"],
    },
}


def _openai_entries(shape: Shape) -> list[dict[str, Any]]:
    if shape == "vllm":
        return [
            {"id": "Qwen/Qwen3-8B", "object": "model", "created": 1733000000, "owned_by": "vllm",
             "root": "Qwen/Qwen3-8B", "parent": None, "max_model_len": 32768},
            {"id": "gpt-4o-mini", "object": "model", "created": 1733000000, "owned_by": "vllm",
             "root": "gpt-4o-mini", "parent": None, "max_model_len": 4096},
        ]  # fmt: skip
    if shape == "llama.cpp":
        return [
            {"id": "gemma-3-4b-it-Q4_K_M.gguf", "object": "model", "created": 1733000000,
             "owned_by": "llamacpp", "meta": {"vocab_type": 2, "n_vocab": 262144,
             "n_ctx_train": 131072, "n_embd": 2560, "n_params": 3880263168, "size": 2489757856}},
        ]  # fmt: skip
    return [
        {"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "system"},
        {"id": "text-embedding-3-small", "object": "model", "created": 1705948997,
         "owned_by": "system"},
    ]  # fmt: skip


_LM_STUDIO_V0 = [
    {"id": "qwen2-vl-7b-instruct", "object": "model", "type": "vlm", "publisher": "mlx-community",
     "arch": "qwen2_vl", "compatibility_type": "mlx", "quantization": "4bit",
     "state": "not-loaded", "max_context_length": 32768},
    {"id": "meta-llama-3.1-8b-instruct", "object": "model", "type": "llm",
     "publisher": "lmstudio-community", "arch": "llama", "compatibility_type": "gguf",
     "quantization": "Q4_K_M", "state": "loaded", "max_context_length": 131072},
    {"id": "text-embedding-nomic-embed-text-v1.5", "object": "model", "type": "embeddings",
     "publisher": "nomic-ai", "arch": "nomic-bert", "compatibility_type": "gguf",
     "quantization": "Q4_0", "state": "not-loaded", "max_context_length": 2048},
]  # fmt: skip


@dataclass
class ModelServer:
    """Answers model-list requests in ``shape`` (module doc); use :meth:`serve` as the route."""

    shape: Shape
    garbage: Garbage | None = None
    hang: bool = False
    list_status: int = 200
    lists: int = field(default=0, init=False)
    """List answers sent with a body (200)."""
    not_modified: int = field(default=0, init=False)
    """304 answers sent."""
    validators_on_304: dict[str, str] | None = None
    """The headers a 304 carries (default: the list's etag and last-modified; RFC 9110 lets
    a server leave them out)."""

    def server(self) -> LoopbackServer:
        """A loopback server answering through :meth:`serve`."""
        return LoopbackServer([], route=self.serve)

    def serve(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
        path = target.split("?", 1)[0]
        if self.shape == "ollama" and (method, path) == ("POST", "/api/show"):
            name = json.loads(body).get("model")
            shown = _OLLAMA_SHOW.get(name)
            if shown is None:
                return json_step(404, {"error": f"model '{name}' not found"})
            return json_step(200, {"modelfile": "# Modelfile", "template": "{{ .Prompt }}",
                                   "details": {"format": "gguf"}, **shown})  # fmt: skip
        payload = self._list(path)
        if payload is None or method != "GET":
            return json_step(404, {"error": {"message": f"no route {method} {path}"}})
        if self.hang:
            return Step(200, {"content-type": "application/json"}, [], end="hang")
        if self.garbage == "html":
            return json_step(200, HTML_ERROR_PAGE)
        if self.garbage == "invalid-json":
            step = json_step(200, {})
            step.parts = [b'{"object": "list", "data": [{"id": "a"']
            return step
        if self.garbage == "wrong-shape":
            return json_step(200, {"models": "none here", "object": "list"})
        if self.list_status != 200:
            return json_step(self.list_status, {"error": {"message": "upstream is down"}})
        if headers.get("if-none-match") == ETAG:
            self.not_modified += 1
            validators = self.validators_on_304
            if validators is None:
                validators = {"etag": ETAG, "last-modified": LAST_MODIFIED}
            return Step(304, dict(validators))
        self.lists += 1
        return json_step(200, payload, {"etag": ETAG, "last-modified": LAST_MODIFIED})

    def _list(self, path: str) -> Any:
        """The list answer at ``path`` in this shape, or ``None`` (404)."""
        if self.shape == "ollama":
            if path != "/api/tags":
                return None
            return {"models": [{"name": name, "model": name, "size": 2019393189,
                                "details": {"format": "gguf", "family": "llama"}}
                               for name in _OLLAMA_SHOW]}  # fmt: skip
        if self.shape == "lm-studio" and path == "/api/v0/models":
            return {"object": "list", "data": _LM_STUDIO_V0}
        if path == "/v1/models":
            entries = (
                [{"id": e["id"], "object": "model", "owned_by": "organization_owner"}
                 for e in _LM_STUDIO_V0]
                if self.shape == "lm-studio"
                else _openai_entries(self.shape)
            )  # fmt: skip
            return {"object": "list", "data": entries}
        return None


def closed_port_url() -> str:
    """``http://127.0.0.1:<port>`` of a port nothing listens on (a connection is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
