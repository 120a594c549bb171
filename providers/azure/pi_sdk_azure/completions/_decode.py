"""Chat Completions on Azure: pi-sdk-openai's decoder plus Azure's filter annotations.

Azure's chunks are OpenAI's plus ``prompt_filter_results`` (its first chunk has no choices and
an empty ``model``: the decoder keeps the first non-empty one) and ``content_filter_results`` on
each choice (:mod:`pi_sdk_azure._filters`). ``finish_reason: content_filter`` ends the reply in
an error naming what was filtered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_sdk_openai._shared_json import as_dict, as_list
from pi_sdk_openai.completions import Decoder as OpenAIDecoder

from pi_sdk.provider import Events, MessageBuilder

from .._filters import filter_message, filtered_categories

__all__ = ["Decoder"]


class Decoder(OpenAIDecoder):
    """:class:`pi_sdk_openai.completions.Decoder` that keeps the last filter annotations."""

    def __init__(
        self, builder: MessageBuilder, *, grammar: Mapping[str, str] | None = None
    ) -> None:
        """Decode into ``builder`` (as the OpenAI decoder)."""
        super().__init__(builder, grammar=grammar)
        self.prompt_filters: Any = None
        """The last ``prompt_filter_results`` seen."""
        self.completion_filters: Any = None
        """The last non-empty ``content_filter_results`` of choice 0."""

    def feed(self, data: dict[str, Any]) -> Events:
        """As the OpenAI decoder; the chunk's filter annotations are kept (no parsing here)."""
        prompt = data.get("prompt_filter_results")
        if prompt:
            self.prompt_filters = prompt
        choices: Any = data.get("choices")
        if choices.__class__ is list and choices:
            choice: Any = choices[0]
            if choice.__class__ is dict:
                results = choice.get("content_filter_results")
                if results:
                    self.completion_filters = results
        return super().feed(data)

    def content_filter_message(self) -> str:
        """``"Azure's content filter blocked the reply (finish_reason: content_filter): ..."``."""
        prompt: list[str] = []
        for entry in as_list(self.prompt_filters):
            prompt += filtered_categories(as_dict(entry).get("content_filter_results"))
        return filter_message(
            "finish_reason: content_filter",
            prompt=prompt,
            completion=filtered_categories(self.completion_filters),
        )
