"""Citations and output images sent to another vendor: the documented text they become.

A :class:`~pi_sdk.types.Citation` is the vendor's own (an Anthropic ``web_search_result_location``,
a Responses ``url_citation``, a Gemini grounding chunk, a Bedrock citation): it goes back, with its
``raw`` JSON, only to the same model and endpoint (the rule of signatures,
:func:`pi_sdk.provider.is_same_source`). For any other target the cross-provider transform
(:func:`pi_sdk.provider.transform_messages`) drops the citations from the text blocks and adds
one text block right after the turn's last cited text block (:func:`cited_sources_text`), so the
conversation keeps which sources the answer rested on:

    [sources cited]
    - <title> <url>
    - <title>: "<cited text>"

one line per source, each URL once (a citation without a URL: its title or document and the
cited passage, cut at 200 characters), at most :data:`MAX_SOURCES_CHARS` characters in all.

An image the model made (:class:`~pi_sdk.types.ImageContent` in an assistant turn) likewise goes
back only to the same model and endpoint; another target gets the text
:func:`image_output_text` in its place (``[image/png image made by google/gemini-2.5-flash-image:
not sent]``): no assistant turn of Anthropic, OpenAI, Bedrock or Mistral can hold an image.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_sdk.types import AssistantMessage, Citation, ImageContent

__all__ = ["MAX_SOURCES_CHARS", "SOURCES_HEADER", "cited_sources_text", "image_output_text"]

MAX_SOURCES_CHARS = 4000
"""Longest text the sources of one turn become for another vendor (characters)."""

SOURCES_HEADER = "[sources cited]"
"""First line of that text."""

_PASSAGE_CHARS = 200


def _line(citation: Citation) -> tuple[str, str] | None:
    """``(key, line)`` of one citation (the key dedupes), or ``None`` when it names nothing."""
    if citation.url:
        line = f"- {citation.title} {citation.url}" if citation.title else f"- {citation.url}"
        return citation.url, line
    passage = " ".join((citation.cited_text or "").split())
    if len(passage) > _PASSAGE_CHARS:
        passage = passage[: _PASSAGE_CHARS - 1] + "…"
    if not citation.title and not passage:
        return None
    line = f"- {citation.title or citation.type}" + (f': "{passage}"' if passage else "")
    return line, line


def cited_sources_text(citations: Iterable[Citation]) -> str | None:
    """The text the sources a turn cites become for another vendor, or ``None``.

    ``None`` when the citations name nothing (see the module docstring for the format).
    """
    lines: dict[str, str] = {}
    for citation in citations:
        found = _line(citation)
        if found is not None and found[0] not in lines:
            lines[found[0]] = found[1]
    if not lines:
        return None
    text = "\n".join([SOURCES_HEADER, *lines.values()])
    return text if len(text) <= MAX_SOURCES_CHARS else text[: MAX_SOURCES_CHARS - 1] + "…"


def image_output_text(block: ImageContent, message: AssistantMessage) -> str:
    """The text that stands for an image ``message`` made, for another vendor."""
    return f"[{block.mime_type} image made by {message.provider}/{message.model}: not sent]"
