"""Azure content-filter annotations → the text of the error that ends a filtered reply.

Azure runs every prompt and completion through its content filters and annotates the reply
(Microsoft Learn, "Content filtering", annotations): Chat Completions put
``prompt_filter_results: [{prompt_index, content_filter_results}]`` on a chunk or the
completion and ``content_filter_results`` on each choice; Responses put ``content_filters:
[{blocked, source_type: "prompt" | "completion", content_filter_results}]`` on the response.
``content_filter_results`` maps a category (``hate``, ``sexual``, ``violence``, ``self_harm``,
``jailbreak``, ``protected_material_text``, ``protected_material_code``, ``profanity``,
``custom_blocklists``, ...) to ``{filtered, severity?, detected?}``.
"""

from __future__ import annotations

from typing import Any, cast

__all__ = ["filtered_categories", "filter_message"]


def filtered_categories(results: Any) -> list[str]:
    """The categories of one ``content_filter_results`` object that were filtered.

    Each reads ``<category>`` or ``<category> (<severity>)``, in the vendor's order; a category
    whose entry is not an object with ``filtered: true`` is left out.
    """
    if not isinstance(results, dict):
        return []
    names: list[str] = []
    for name, entry in cast(dict[str, Any], results).items():
        if not isinstance(entry, dict):
            continue
        fields = cast(dict[str, Any], entry)
        if fields.get("filtered") is not True:
            continue
        severity = fields.get("severity")
        names.append(f"{name} ({severity})" if isinstance(severity, str) else str(name))
    return names


def filter_message(what: str, *, prompt: list[str], completion: list[str]) -> str:
    """``"Azure's content filter blocked the reply (<what>): completion: violence (high); ..."``.

    ``prompt`` / ``completion`` are :func:`filtered_categories` results; when both are empty the
    text says the annotations named no category.
    """
    found = [
        f"{source}: {', '.join(names)}"
        for source, names in (("prompt", prompt), ("completion", completion))
        if names
    ]
    detail = "; ".join(found) if found else "the annotations name no filtered category"
    return f"Azure's content filter blocked the reply ({what}): {detail}"
