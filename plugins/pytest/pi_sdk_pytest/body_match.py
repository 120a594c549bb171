"""Request bodies compared on replay: parsed JSON, volatile values masked, first difference named.

On replay a model call matches its recorded interaction only if its JSON body is the same
(:func:`pi_sdk_pytest.open_cassette`, ``match_body=True``, the default): a changed prompt, a
new ``tools: []`` or another model fails the test, and the failure names the first differing
JSON path (:func:`json_body_difference`).

The comparison is of parsed JSON (key order and whitespace are free; ``1`` equals ``1.0``).
Values that legitimately change from run to run without the code changing are masked on both
sides first: the key must still be present (or absent) on both, only its value is not
compared. The rule (:data:`VOLATILE_BODY_KEYS`) names the keys pi-sdk's providers fill from
per-run identifiers:

* ``metadata.user_id``: Anthropic's end-user id (``StreamOptions.metadata``), often a fresh
  session or user id per run;
* ``prompt_cache_key``: OpenAI's and Mistral's cache key, pi-sdk's ``StreamOptions.session_id``,
  which applications commonly generate per run (a UUID).

Neither changes what the model is asked. Nothing else varies in pi-sdk's request bodies
(messages carry no timestamps on the wire; tool-call ids come from the recorded replies). A
test adds its own keys with the ``ignore_body_keys`` option: dotted paths from the body's root,
``*`` standing for any key or list index (``"messages.*.id"``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, cast

__all__ = [
    "MASKED",
    "VOLATILE_BODY_KEYS",
    "json_body_difference",
    "masked_body",
    "parsed_body",
]

VOLATILE_BODY_KEYS: tuple[str, ...] = ("metadata.user_id", "prompt_cache_key")
"""Body paths whose values are not compared on replay, only their presence (dotted paths).

``metadata.user_id`` (Anthropic's end-user id) and ``prompt_cache_key`` (OpenAI's and
Mistral's cache key, from ``StreamOptions.session_id``): both are often generated per run and
neither changes what the model is asked (docs/testing.md, "Body matching").
"""

MASKED = "<not compared>"
"""What a masked value reads as, in both bodies and in a difference message."""


def parsed_body(body: Any) -> Any:
    """A recorded request body (``bytes``, ``str`` or ``None``, as vcrpy stores it) as JSON.

    Returns the parsed value; ``None`` for an absent or empty body; the body itself when it is
    not JSON (so two such bodies still compare byte for byte). Never raises.
    """
    if body in (None, b"", ""):
        return None
    try:
        return json.loads(body)
    except (TypeError, ValueError):
        return body


def masked_body(body: Any, paths: Iterable[str]) -> Any:
    """Return a copy of the parsed ``body`` with the value at each of ``paths`` masked.

    Args:
        body: A parsed JSON value (anything else is returned unchanged).
        paths: Dotted paths; ``*`` matches any key of an object or any index of a list. A path
            that does not exist in ``body`` is skipped.
    """
    split = [tuple(p.split(".")) for p in paths if p]
    return _mask(body, split) if split else body


def _mask(value: Any, paths: list[tuple[str, ...]]) -> Any:
    if isinstance(value, dict):
        items = cast(dict[str, Any], value)
        return {key: _mask_child(key, item, paths) for key, item in items.items()}
    if isinstance(value, list):
        entries = cast(list[Any], value)
        return [_mask_child(str(i), item, paths) for i, item in enumerate(entries)]
    return value


def _mask_child(key: str, item: Any, paths: list[tuple[str, ...]]) -> Any:
    rest = [p[1:] for p in paths if p[0] in (key, "*")]
    if not rest:
        return item
    if () in rest:
        return MASKED
    return _mask(item, rest)


def json_body_difference(live: Any, recorded: Any, path: str = "$") -> str | None:
    """Return the first difference between two JSON values as ``"<path>: <a> != <b>"``, or None.

    Object keys are visited in sorted order, list items in order; a key on one side only reads
    ``"$.key: only in the live request"`` (or ``"only in the recording"``), lists of different
    lengths ``"$.messages: 2 items live, 1 recorded"``.
    """
    if isinstance(live, dict) and isinstance(recorded, dict):
        a, b = cast(dict[str, Any], live), cast(dict[str, Any], recorded)
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                side = "only in the recording" if key not in a else "only in the live request"
                return f"{path}.{key}: {side}"
            found = json_body_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(live, list) and isinstance(recorded, list):
        a_list, b_list = cast(list[Any], live), cast(list[Any], recorded)
        for i, (x, y) in enumerate(zip(a_list, b_list, strict=False)):
            found = json_body_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a_list) != len(b_list):
            return f"{path}: {len(a_list)} items live, {len(b_list)} recorded"
        return None
    if live != recorded:
        return f"{path}: {_short(live)} != {_short(recorded)} (live != recorded)"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, bytes) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
