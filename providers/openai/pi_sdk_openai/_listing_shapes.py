"""What OpenAI-compatible servers say about their models, read into ``pi_sdk.Model`` objects.

Each model gets its id, ``api="openai-completions"``, the provider and its base URL, and only the
fields its server states (pydantic ``model_fields_set``): :meth:`pi_sdk.Models.refresh` fills
the rest from a catalog model with the same id. Models a server marks as embedding or reranking
models are left out. The shapes, from each server's documented API:

* OpenAI ``GET /v1/models``: ``{"object": "list", "data": [{"id", "object", "created",
  "owned_by"}]}``: the id only. The same list carries, when the server gives them:
  vLLM's ``max_model_len`` (the context window it serves), llama.cpp's ``meta.n_ctx_train``,
  LM Studio's ``/api/v0/models`` fields ``type`` (``llm``, ``vlm``: images in, ``embeddings``)
  and ``max_context_length``, and the gateway fields ``context_length`` / ``context_window``,
  ``name`` / ``display_name``, OpenRouter's ``architecture.input_modalities``,
  ``top_provider.max_completion_tokens`` and ``supported_parameters`` (``reasoning``), and
  ``type`` (``embedding``, ``rerank``: left out). A bare JSON array of the same entries
  (Together) is read too.
* Ollama ``GET /api/tags``: ``{"models": [{"name", "model", "details"}]}`` names the models;
  ``POST /api/show {"model": name}`` gives ``capabilities`` (``completion``, ``vision``,
  ``thinking``, ``embedding``...), ``model_info["<architecture>.context_length"]`` and the
  Modelfile ``parameters`` (a ``num_ctx`` line there is the context the server runs with, so it
  wins).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pi_sdk import Model

from ._listing_http import ListingError
from ._shared_json import as_dict, as_list

__all__ = ["model_from_show", "models_from_list", "ollama_names"]

_NOT_CHAT = frozenset({"embedding", "embeddings", "rerank", "reranker", "reranking"})
"""``type`` values of models that do not chat (LM Studio ``embeddings``, Together
``embedding`` / ``rerank``)."""
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _positive(*values: object) -> int | None:
    """The first value that is a positive integer (``True`` is not one)."""
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _text(*values: object) -> str | None:
    """The first value that is a non-blank string, stripped."""
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _model(
    provider: str, base_url: str, model_id: str, fields: dict[str, Any], compat: Mapping[str, Any]
) -> Model:
    if compat:
        fields["compat"] = dict(compat)
    return Model(
        id=model_id, api="openai-completions", provider=provider, base_url=base_url, **fields
    )


def _list_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """The fields an entry of an OpenAI-style list states (module doc)."""
    meta = as_dict(entry.get("meta"))
    architecture = as_dict(entry.get("architecture"))
    fields: dict[str, Any] = {}
    context = _positive(
        entry.get("max_model_len"),
        entry.get("max_context_length"),
        entry.get("context_length"),
        entry.get("context_window"),
        meta.get("n_ctx"),
        meta.get("n_ctx_train"),
    )
    if context is not None:
        fields["context_window"] = context
    output = _positive(as_dict(entry.get("top_provider")).get("max_completion_tokens"))
    if output is not None:
        fields["max_tokens"] = output
    name = _text(entry.get("name"), entry.get("display_name"))
    if name is not None:
        fields["name"] = name
    modalities = architecture.get("input_modalities")
    if isinstance(modalities, list):
        fields["input"] = ["text", "image"] if "image" in modalities else ["text"]
    elif entry.get("type") == "vlm":
        fields["input"] = ["text", "image"]
    parameters = entry.get("supported_parameters")
    if isinstance(parameters, list):
        fields["reasoning"] = "reasoning" in parameters
    return fields


def models_from_list(
    payload: Any,
    *,
    provider: str,
    base_url: str,
    where: str,
    compat: Mapping[str, Any] | None = None,
) -> list[Model]:
    """The models of an OpenAI-style list (``GET /v1/models``, LM Studio ``/api/v0/models``).

    Entries without a string ``id`` are skipped, and so are repeated ids (the first counts).

    Raises:
        ListingError: the answer has no ``data`` list (and is no list itself), or it lists
            entries of which none has an id (``where`` names the request).
    """
    data: object = as_dict(payload).get("data", payload)
    entries = as_list(data)
    if not isinstance(data, list):
        raise ListingError(f"{where}: unexpected answer: no 'data' list of models")
    models: dict[str, Model] = {}
    named = 0
    for value in entries:
        entry = as_dict(value)
        model_id = _text(entry.get("id"))
        if model_id is None:
            continue
        named += 1
        kind = entry.get("type")
        if model_id in models or (isinstance(kind, str) and kind.lower() in _NOT_CHAT):
            continue
        models[model_id] = _model(provider, base_url, model_id, _list_fields(entry), compat or {})
    if entries and not named:
        raise ListingError(f"{where}: unexpected answer: no entry of 'data' has an 'id'")
    return list(models.values())


def ollama_names(payload: Any, *, where: str) -> list[str]:
    """The model names of Ollama's ``GET /api/tags`` answer, in its order, without repeats.

    Raises:
        ListingError: no ``models`` list, or entries of which none has a name.
    """
    data: object = as_dict(payload).get("models")
    entries = as_list(data)
    if not isinstance(data, list):
        raise ListingError(f"{where}: unexpected answer: no 'models' list")
    names = [_text(as_dict(e).get("name"), as_dict(e).get("model")) for e in entries]
    found = [name for name in names if name is not None]
    if names and not found:
        raise ListingError(f"{where}: unexpected answer: no entry of 'models' has a 'name'")
    return list(dict.fromkeys(found))


def model_from_show(
    name: str,
    show: Any,
    *,
    provider: str,
    base_url: str,
    compat: Mapping[str, Any] | None = None,
) -> Model | None:
    """The model ``name`` as Ollama's ``POST /api/show`` answer ``show`` describes it.

    Returns:
        The model; ``None`` for an embedding-only model (``capabilities`` has ``embedding`` but
        not ``completion``). Fields the answer lacks (an older Ollama without
        ``capabilities``) are not set.
    """
    answer = as_dict(show)
    fields: dict[str, Any] = {}
    capabilities = answer.get("capabilities")
    if isinstance(capabilities, list):
        if "embedding" in capabilities and "completion" not in capabilities:
            return None
        fields["input"] = ["text", "image"] if "vision" in capabilities else ["text"]
        fields["reasoning"] = "thinking" in capabilities
    info = as_dict(answer.get("model_info"))
    architecture = info.get("general.architecture")
    trained = info.get(f"{architecture}.context_length") if isinstance(architecture, str) else None
    parameters = answer.get("parameters")
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    context = _positive(int(match.group(1)) if match else None, trained)
    if context is not None:
        fields["context_window"] = context
    return _model(provider, base_url, name, fields, compat or {})
