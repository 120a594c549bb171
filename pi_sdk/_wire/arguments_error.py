"""What is wrong with a tool call's argument text, in words (pi-ai 1.6 ``argumentsError``).

A finished tool call whose argument text is not one whole JSON object is malformed. pi-ai 1.6
(``parseToolCallArguments``, ``utils/json-parse.ts``) records why on the call as
``argumentsError``: the parser's message, a blank line, ``Received arguments:`` and the text the
model sent. :func:`arguments_error_text` writes that description for pi-sdk's calls (whose raw
text is :attr:`pi_sdk.ToolCall.invalid_arguments`); :func:`json_object_problem` is the reason.
"""

from __future__ import annotations

import json

__all__ = ["CUT_OFF_REASON", "arguments_error_text", "json_object_problem"]

CUT_OFF_REASON = "no argument text: the reply was cut off before the call's arguments"
"""The reason given for a call that has no argument text at all (pi-sdk marks such a last call
of a reply cut at the token limit)."""

_JSON_KINDS: dict[type, str] = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
}


def json_object_problem(raw: str) -> str:
    """Why ``raw`` is not a JSON object, in the words of Python's JSON parser.

    ``"the text is empty"`` for blank text, ``"a JSON array is not an object"`` (and so on) for
    valid JSON of another kind, ``"nesting too deep"``, or the parser's own message.
    """
    if not raw.strip():
        return "the text is empty"
    try:
        value: object = json.loads(raw)
    except RecursionError:
        return "nesting too deep"
    except ValueError as exc:
        return str(exc)
    kind = _JSON_KINDS.get(type(value), "value")
    return f"a JSON {kind} is not an object"


def arguments_error_text(raw: str) -> str:
    """pi-ai 1.6's ``argumentsError`` for the malformed argument text ``raw``.

    The reason, a blank line, ``Received arguments:`` and ``raw``, each on a line of its own. The
    reason is :func:`json_object_problem`'s, or :data:`CUT_OFF_REASON` for an empty text (pi-ai
    parses an empty text as ``{}``; pi-sdk marks a cut-off call with no text malformed, so its
    tool never runs on defaults).
    """
    reason = json_object_problem(raw) if raw.strip() else CUT_OFF_REASON
    return f"{reason}\n\nReceived arguments:\n{raw}"
