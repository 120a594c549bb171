"""pi-sdk-google passes the conformance kit (pi-sdk-pytest): the Gemini API and Vertex AI."""

from __future__ import annotations

import pytest
from _support.kit_declarations import SAME_DECODING, first_party
from pi_sdk_pytest import ProviderConformance


class TestGeminiConformance(ProviderConformance):
    provider = first_party("google-generative-ai")


class TestVertexConformance(ProviderConformance):
    provider = first_party("google-vertex")

    @pytest.mark.skip(reason=SAME_DECODING["google-vertex"])
    def test_truncation_at_every_byte_ends_in_one_error(self) -> None: ...
