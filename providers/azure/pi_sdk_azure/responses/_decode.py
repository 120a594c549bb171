"""``azure-openai-responses`` stream: pi-sdk-openai's Responses decoder plus Azure's filters.

Azure's Responses events and documents are OpenAI's plus a ``content_filters`` array on the
response (:mod:`pi_sdk_azure._filters`). A reply that ends ``incomplete`` for
``content_filter`` becomes an error naming what was filtered.
"""

from __future__ import annotations

from typing import Any

from pi_sdk_openai._shared_json import as_dict, as_list
from pi_sdk_openai.responses import Decoder as OpenAIDecoder

from pi_sdk.provider import Events, MessageBuilder

from .._filters import filter_message, filtered_categories

__all__ = ["Decoder"]

_RESPONSE_EVENTS = frozenset({"response.completed", "response.incomplete", "response.failed"})


class Decoder(OpenAIDecoder):
    """:class:`pi_sdk_openai.responses.Decoder` that keeps the response's ``content_filters``."""

    def __init__(self, builder: MessageBuilder, **options: Any) -> None:
        """Decode into ``builder`` (as the OpenAI decoder, with its keyword options)."""
        super().__init__(builder, **options)
        self.content_filters: list[Any] = []
        """The last ``content_filters`` array seen (``[]``: none)."""

    def _note(self, response: Any) -> None:
        filters = as_list(as_dict(response).get("content_filters"))
        if filters:
            self.content_filters = filters

    def feed(self, data: dict[str, Any]) -> Events:
        """As the OpenAI decoder; the terminal events' ``content_filters`` are kept."""
        if data.get("type") in _RESPONSE_EVENTS:
            self._note(data.get("response"))
        return super().feed(data)

    def feed_document(self, document: Any) -> Events:
        """As the OpenAI decoder; the document's ``content_filters`` are kept."""
        self._note(document)
        return super().feed_document(document)

    def content_filter_message(self) -> str:
        """``"Azure's content filter blocked the reply (incomplete): completion: ..."``."""
        found: dict[str, list[str]] = {"prompt": [], "completion": []}
        for entry in self.content_filters:
            fields = as_dict(entry)
            source = fields.get("source_type")
            if isinstance(source, str) and source in found:
                found[source] += filtered_categories(fields.get("content_filter_results"))
        return filter_message(
            "incomplete: content_filter", prompt=found["prompt"], completion=found["completion"]
        )
