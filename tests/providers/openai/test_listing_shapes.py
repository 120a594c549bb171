"""What an OpenAI-style model list entry states becomes the model's fields; nothing else does.

``models_from_list`` reads vLLM, llama.cpp, LM Studio, OpenRouter-like and plain OpenAI
entries (``_listing_shapes`` module doc): the context window from any of the servers' names
for it, the output cap from ``top_provider``, a display name, image input from
``architecture.input_modalities`` (or ``type: "vlm"``), reasoning from
``supported_parameters``; entries without an id are skipped, repeats keep the first, and a
list where no entry has an id is an error naming the request.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai._listing_shapes import ListingError, models_from_list, ollama_names

WHERE = "GET http://127.0.0.1:8000/v1/models"


def listed(*entries: Any, compat: dict[str, Any] | None = None) -> list[Any]:
    payload = {"object": "list", "data": list(entries)}
    base = "http://127.0.0.1:8000/v1"
    return models_from_list(payload, provider="local", base_url=base, where=WHERE, compat=compat)


def test_every_stated_field_is_the_models() -> None:
    [model] = listed({
        "id": "vendor/model-a",
        "name": "  Model A  ",
        "context_length": 131_072,
        "top_provider": {"max_completion_tokens": 8_192},
        "architecture": {"input_modalities": ["text", "image"]},
        "supported_parameters": ["temperature", "reasoning"],
    }, compat={"supportsStore": False})  # fmt: skip
    assert (model.id, model.name, model.context_window, model.max_tokens) == (
        "vendor/model-a", "Model A", 131_072, 8_192)  # fmt: skip
    assert (model.input, model.reasoning, model.compat) == (
        ["text", "image"], True, {"supportsStore": False})  # fmt: skip


def test_what_an_entry_does_not_state_is_left_to_the_defaults() -> None:
    plain, text_only, vlm = listed(
        {"id": "plain"},
        {"id": "text-only", "architecture": {"input_modalities": ["text"]},
         "supported_parameters": ["temperature"], "display_name": "Text Only"},
        {"id": "vision", "type": "vlm"},
    )  # fmt: skip
    default = listed({"id": "x"})[0]
    assert (plain.name, plain.input, plain.reasoning, plain.compat) == (
        default.name, default.input, default.reasoning, None)  # fmt: skip
    assert (text_only.input, text_only.reasoning, text_only.name) == (["text"], False, "Text Only")
    assert vlm.input == ["text", "image"]


@pytest.mark.parametrize(
    "bad",
    [0, -5, True, "8192", None, 1.5],
    ids=["zero", "negative", "bool", "str", "none", "float"],
)
def test_an_output_cap_that_is_not_a_positive_integer_is_not_taken(bad: Any) -> None:
    [model] = listed({"id": "m", "top_provider": {"max_completion_tokens": bad}})
    assert model.max_tokens == listed({"id": "m"})[0].max_tokens


def test_entries_without_an_id_are_skipped_and_repeats_keep_the_first() -> None:
    models = listed({"object": "model"}, {"id": " a ", "name": "first"}, {"id": "a", "name": "2nd"},
                    {"id": 7}, {"id": "b"})  # fmt: skip
    assert [(m.id, m.name) for m in models] == [("a", "first"), ("b", listed({"id": "b"})[0].name)]


def test_a_list_where_no_entry_has_an_id_is_an_error_naming_the_request() -> None:
    with pytest.raises(ListingError) as refused:
        listed({"name": "x"}, {"id": ""}, {"id": None})
    assert str(refused.value) == f"{WHERE}: unexpected answer: no entry of 'data' has an 'id'"
    assert listed() == []  # an empty list is a server with no models


def test_ollama_tags_where_no_entry_has_a_name_is_an_error() -> None:
    with pytest.raises(ListingError) as refused:
        ollama_names({"models": [{"size": 1}, {"name": " "}]}, where="GET /api/tags")
    assert (
        str(refused.value) == "GET /api/tags: unexpected answer: no entry of 'models' has a 'name'"
    )
    assert ollama_names({"models": [{"model": "b"}, {"name": "a"}, {"name": "b"}]},
                        where="x") == ["b", "a"]  # fmt: skip


@pytest.mark.parametrize(
    ("capabilities", "read"),
    [
        (["embedding"], None),
        (["completion", "embedding"], (["text"], False)),
        (["completion"], (["text"], False)),
        (["completion", "vision", "thinking"], (["text", "image"], True)),
        ([], (["text"], False)),
        (["vision"], (["text", "image"], False)),
        (["thinking", "tools"], (["text"], True)),
    ],
)
def test_only_an_embedding_only_ollama_model_is_left_out(
    capabilities: list[str], read: tuple[list[str], bool] | None
) -> None:
    from pi_sdk_openai._listing_shapes import model_from_show

    show = {"capabilities": capabilities}
    model = model_from_show("m:1b", show, provider="ollama", base_url="http://h:11434/v1")
    if read is None:
        assert model is None
        return
    assert model is not None
    assert (model.id, model.provider, model.base_url) == ("m:1b", "ollama", "http://h:11434/v1")
    assert (model.input, model.reasoning) == read


@pytest.mark.parametrize(
    ("compat", "kept"),
    [({"supportsStore": False}, {"supportsStore": False}), ({}, None), (None, None)],
)
def test_an_ollama_model_carries_the_servers_compat(
    compat: dict[str, Any] | None, kept: dict[str, Any] | None
) -> None:
    from pi_sdk_openai._listing_shapes import model_from_show

    show = {"capabilities": ["completion"]}
    model = model_from_show("m", show, provider="ollama", base_url="http://h/v1", compat=compat)
    assert model is not None and model.compat == kept
