"""Bedrock citations -> :class:`pi_sdk.Citation` on the text block, and back.

With citations enabled on a document (``citations: {enabled: true}``) or a grounding system
tool (Nova ``nova_grounding``), Converse answers with a ``citationsContent`` block
(Bedrock Runtime API reference, ``CitationsContentBlock``): ``content`` (``[{text}]``, the
answer) and ``citations``, each ``{title?, source?, sourceContent?: [{text}], location?}`` whose
``location`` is one of ``web`` (``url``, ``domain``), ``documentChar`` / ``documentPage`` /
``documentChunk`` (``documentIndex``, ``start``, ``end`` in the source document),
``searchResultLocation``. ConverseStream sends the text as ``text`` deltas and each citation as
a ``citation`` delta (``CitationsDelta``, same fields) of the same content block.

A citation becomes ``type`` = its location's kind (``"web"``, ``"documentChar"``...; plain
``"citation"`` without a location), ``url`` (a web location's), ``title`` (the citation's, else
the web domain), ``cited_text`` (the source passages joined), no span in the answer (Bedrock
gives none), ``raw`` the citation as it came. Replayed to the same model and endpoint, a text
block with citations goes back as the ``citationsContent`` block it came as
(:func:`citations_block`).
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["citation", "citations_block"]


def _dict(value: Any) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def citation(raw: dict[str, Any]) -> pi_sdk.Citation:
    """The :class:`pi_sdk.Citation` of one Bedrock citation (or ``citation`` delta)."""
    location = _dict(raw.get("location"))
    kind = next(iter(location), None)
    web = _dict(location.get("web"))
    source = raw.get("sourceContent")
    parts = cast(list[Any], source) if isinstance(source, list) else []
    passages = [_dict(p).get("text") for p in parts]
    cited = "\n".join(p for p in passages if isinstance(p, str))
    return pi_sdk.Citation(
        type=str(kind or "citation"),
        url=_text(web.get("url")),
        title=_text(raw.get("title")) or _text(web.get("domain")) or _text(raw.get("source")),
        cited_text=cited or None,
        raw=dict(raw),
    )


def citations_block(block: pi_sdk.TextContent) -> dict[str, Any] | None:
    """The ``citationsContent`` block a text block with citations goes back as, or ``None``.

    ``None``: the block has no citations of the same source; it goes back as plain ``text``.
    """
    cited = [c.raw for c in block.citations or () if c.raw is not None]
    if not cited:
        return None
    return {"citationsContent": {"content": [{"text": block.text}], "citations": cited}}
