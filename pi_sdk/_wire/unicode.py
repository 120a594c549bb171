"""Removal of lone UTF-16 surrogates from outgoing strings (pi-spec §6.4)."""

from __future__ import annotations

import re

__all__ = ["sanitize_surrogates"]

_LONE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def sanitize_surrogates(text: str) -> str:
    r"""Return ``text`` without unpaired surrogate code points; valid pairs are kept.

    A ``str`` holds surrogates only when decoded with ``surrogatepass`` or from JSON escapes
    such as ``"\\ud83d"``; sending one makes ``json.dumps(..., ensure_ascii=False)`` or UTF-8
    encoding fail, so every provider strips them from user, assistant, tool-result and system
    text (pi-mono ``sanitizeSurrogates``).
    """
    if not text.isascii() and _LONE.search(text):
        return _LONE.sub("", text)
    return text
