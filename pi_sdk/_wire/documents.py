"""Document blocks on their way to a target API: what it accepts, checks, the text conversion.

A provider says what its wire API takes as a :class:`DocumentRules` (a plain dict) and passes it
to :func:`pi_sdk.provider.transform_messages` (``documents=``), which calls
:func:`prepare_document` on every :class:`~pi_sdk.types.DocumentContent` of the history, before
any request. A document the target cannot take is a :class:`~pi_sdk.errors.ConfigurationError`
naming the model, the kind and the block's place (``messages[3].content[1]``), except a text
document (``text/*``, ``application/json``), which becomes a text block (lossless: the text and
its name are kept, see :func:`document_as_text`). Rules are in ``docs/documents.md``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection
from typing import TypedDict

from pi_sdk.errors import ConfigurationError
from pi_sdk.types import DocumentContent, Model, TextContent

__all__ = [
    "DocumentRules",
    "document_as_text",
    "is_text_type",
    "media_type",
    "prepare_document",
]


class DocumentRules(TypedDict, total=False):
    """What one wire API accepts as a document (each provider's own table; all keys optional).

    * ``sources``: the sources it takes, among ``"data"``, ``"url"``, ``"fileId"``
      (default: none, so every non-text document is an error);
    * ``mime_types``: media types it takes as ``data`` (a text type missing here is converted
      to text; any other is an error);
    * ``url_schemes``: URL schemes it fetches (default ``("https", "http")``);
    * ``max_bytes``: the vendor's documented limit on one document's decoded size, in bytes;
    * ``limit_source``: where that limit is documented (quoted in the error);
    * ``vision``: the vendor reads documents other than text with the model's vision, so a
      model whose ``input`` lacks ``"image"`` takes only text documents, as text (OpenAI,
      Anthropic); default false (Bedrock extracts the text itself).
    """

    sources: Collection[str]
    mime_types: Collection[str]
    url_schemes: Collection[str]
    max_bytes: int
    limit_source: str
    vision: bool


_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/x-yaml"})


def media_type(block: DocumentContent) -> str:
    """The block's media type, lower case, without parameters (``""`` when it has none)."""
    return (block.mime_type or "").split(";", 1)[0].strip().lower()


def is_text_type(mime_type: str) -> bool:
    """True for a media type whose bytes are text: ``text/*``, JSON, XML, YAML."""
    return mime_type.startswith("text/") or mime_type in _TEXT_TYPES


def _decode(block: DocumentContent, where: str) -> bytes:
    try:
        return base64.b64decode(block.data or "", validate=True)
    except (binascii.Error, ValueError):
        raise ConfigurationError(
            f"{where}: the document's data is not base64 (pass the file's bytes base64-encoded, "
            "without a data: prefix)"
        ) from None


def document_as_text(block: DocumentContent, where: str = "document") -> TextContent:
    """A text document as a text block: ``<document name=.. type=..>``, its text, ``</document>``.

    Raises:
        ConfigurationError: the data is not base64, or not UTF-8 text.
    """
    raw = _decode(block, where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigurationError(
            f"{where}: the {media_type(block)} document is not UTF-8 text"
        ) from None
    name = f' name="{block.name}"' if block.name else ""
    return TextContent(text=f'<document{name} type="{media_type(block)}">\n{text}\n</document>')


def _kind(block: DocumentContent) -> str:
    if block.data is not None:
        return f"a {media_type(block)} document given as data"
    if block.url is not None:
        return f"a document given by URL ({block.url.split(':', 1)[0]}:)"
    return "a document given by file id"


def prepare_document(
    block: DocumentContent, rules: DocumentRules | None, model: Model, where: str
) -> DocumentContent | TextContent:
    """Check ``block`` against the target's ``rules``; return it, or its text conversion.

    Args:
        block: A document of the history.
        rules: What the target API takes (``None``: no documents at all).
        model: The target model (its id and API are named in errors; see ``vision`` of
            :class:`DocumentRules`).
        where: The block's place, e.g. ``"messages[2].content[0]"``.

    Returns:
        ``block`` unchanged, or a :class:`TextContent` for a text document the target does not
        take natively.

    Raises:
        ConfigurationError: a source, URL scheme or media type the target does not take, a
            document over the vendor's size limit, data that is not base64.
    """
    rules = rules or {}
    target = f"{model.provider}/{model.id} ({model.api})"
    mime = media_type(block)
    text = block.data is not None and is_text_type(mime)
    visual = not rules.get("vision") or "image" in model.input
    if text:
        converted = document_as_text(block, where)  # also checks that it is UTF-8 text
        if not visual or mime not in rules.get("mime_types", ()):
            return converted
    if not visual:
        raise ConfigurationError(
            f"{where}: {target} does not take documents (its input is {model.input}); "
            f"cannot send {_kind(block)}"
        )
    if block.source not in rules.get("sources", ()):
        raise ConfigurationError(f"{where}: {target} does not take {_kind(block)}")
    if block.url is not None:
        scheme = block.url.split(":", 1)[0].lower() if ":" in block.url else ""
        schemes = rules.get("url_schemes", ("https", "http"))
        if scheme not in schemes:
            raise ConfigurationError(
                f"{where}: {target} does not take {_kind(block)}; "
                f"it fetches {', '.join(s + ':' for s in schemes)} URLs"
            )
    if block.data is None:
        return block
    if mime not in rules.get("mime_types", ()):
        raise ConfigurationError(
            f"{where}: {target} does not take {_kind(block)}; it takes "
            f"{', '.join(sorted(rules.get('mime_types', ()))) or 'no data documents'}"
        )
    limit = rules.get("max_bytes")
    size = len(_decode(block, where))
    if limit is not None and size > limit:
        source = rules.get("limit_source")
        raise ConfigurationError(
            f"{where}: the document{f' {block.name!r}' if block.name else ''} is {size} bytes; "
            f"{target} takes at most {limit} bytes per document"
            + (f" ({source})" if source else "")
        )
    return block
