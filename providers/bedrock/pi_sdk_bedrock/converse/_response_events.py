"""A whole Converse response as the ConverseStream events it would have come as.

Bedrock Runtime API reference, ``Converse`` (``output.message.content``, ``stopReason``,
``usage``) and ``ConverseStream`` (its event members): the decoder reads a non-streamed answer
through the same rules as a stream (:meth:`._decode.Decoder.feed_document`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

__all__ = ["response_as_events"]


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def response_as_events(response: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Return the stream events a whole Converse response would have come as.

    ``messageStart``; per content block: ``text`` as one text delta, ``reasoningContent``
    (``reasoningText.text`` then ``.signature``, or ``redactedContent``) as deltas,
    ``toolUse`` as a ``contentBlockStart`` plus one ``input`` delta (``json.dumps``),
    ``citationsContent`` as its text deltas then one ``citation`` delta per citation, any other
    block (``toolResult``, ``image``, ...) as a start the decoder skips; each then
    ``contentBlockStop``; then ``messageStop`` (``stopReason``) and ``metadata`` (``usage``).
    """
    message = _dict(_dict(response.get("output")).get("message"))
    yield "messageStart", {"role": message.get("role") or "assistant"}
    raw_content = message.get("content")
    blocks = cast("list[Any]", raw_content) if isinstance(raw_content, list) else []
    for index, raw in enumerate(blocks):
        block = _dict(raw)
        key = {"contentBlockIndex": index}
        if isinstance(block.get("text"), str):
            yield "contentBlockDelta", {**key, "delta": {"text": block["text"]}}
        elif "citationsContent" in block:  # cited text: as ConverseStream sends it
            cited = _dict(block["citationsContent"])
            for part in cast("list[Any]", cited.get("content") or []):
                text = _dict(part).get("text")
                if isinstance(text, str):
                    yield "contentBlockDelta", {**key, "delta": {"text": text}}
            for one in cast("list[Any]", cited.get("citations") or []):
                yield "contentBlockDelta", {**key, "delta": {"citation": one}}
        elif "reasoningContent" in block:
            reasoning = _dict(block["reasoningContent"])
            if "redactedContent" in reasoning:
                pieces = [{"redactedContent": reasoning["redactedContent"]}]
            else:
                text = _dict(reasoning.get("reasoningText"))
                pieces = [{"text": text.get("text") or ""}]
                if text.get("signature"):
                    pieces.append({"signature": text["signature"]})
            for piece in pieces:
                yield "contentBlockDelta", {**key, "delta": {"reasoningContent": piece}}
        elif "toolUse" in block:
            tool = _dict(block["toolUse"])
            start = {k: v for k, v in tool.items() if k != "input"}
            yield "contentBlockStart", {**key, "start": {"toolUse": start}}
            arguments = tool.get("input")
            if arguments not in (None, {}):
                piece = json.dumps(arguments, ensure_ascii=False)
                yield "contentBlockDelta", {**key, "delta": {"toolUse": {"input": piece}}}
        else:
            yield "contentBlockStart", {**key, "start": block}
        yield "contentBlockStop", key
    yield "messageStop", {"stopReason": response.get("stopReason")}
    yield "metadata", {"usage": _dict(response.get("usage"))}
