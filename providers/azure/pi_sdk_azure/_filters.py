"""Azure content-filter annotations → the text of the error that ends a filtered reply.

Azure runs every prompt and completion through its content filters and annotates the reply
(Microsoft Learn, "Content filtering", annotations): Chat Completions put
``prompt_filter_results: [{prompt_index, content_filter_results}]`` on a chunk or the
completion and ``content_filter_results`` on each choice; Responses put ``content_filters:
[{blocked, source_type: "prompt" | "completion", content_filter_results}]`` on the response.
``content_filter_results`` maps a category (``hate``, ``sexual``, ``violence``, ``self_harm``,
``jailbreak``, ``protected_material_text``, ``protected_material_code``, ``profanity``,
``custom_blocklists``, ...) to ``{filtered, severity?, detected?}``. A prompt Azure refuses
comes back as HTTP 400 with error ``code: content_filter`` and the results in
``innererror.content_filter_result``.
"""

from __future__ import annotations

from typing import Any, cast

from pi_sdk.provider import ProviderError

__all__ = ["filter_message", "filtered_categories", "with_filter_detail"]


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


def with_filter_detail(error: ProviderError) -> ProviderError:
    """``error`` with the filtered categories added, if it is Azure's content-filter refusal.

    That is an HTTP error whose cause (the ``openai`` SDK's status error) has a body with
    ``code: content_filter``; any other error is returned as is. The text becomes
    ``"<status> ...: content_filter: <Azure's message> (filtered: <what>: jailbreak)"``,
    ``<what>`` being the error's ``param`` (``prompt``) or ``request``; status, retry flag and
    wait are kept.
    """
    body: Any = getattr(error.__cause__, "body", None)
    if not isinstance(body, dict):
        return error
    fields = cast(dict[str, Any], body)
    inner: Any = fields.get("innererror")
    if fields.get("code") != "content_filter" or not isinstance(inner, dict):
        return error
    names = filtered_categories(cast(dict[str, Any], inner).get("content_filter_result"))
    if not names:
        return error
    param = fields.get("param")
    where = param if isinstance(param, str) and param else "request"
    return ProviderError(
        f"{error} (filtered: {where}: {', '.join(names)})",
        status=error.status,
        retryable=error.retryable,
        retry_after_ms=error.retry_after_ms,
    )
