"""pi-sdk-azure passes the conformance kit (pi-sdk-pytest): Responses on Azure's v1 endpoint."""

from __future__ import annotations

import pytest
from _support.kit_declarations import SAME_DECODING, first_party
from pi_sdk_pytest import ProviderConformance


class TestAzureResponsesConformance(ProviderConformance):
    provider = first_party("azure-openai-responses")

    @pytest.mark.skip(reason=SAME_DECODING["azure-openai-responses"])
    def test_truncation_at_every_byte_ends_in_one_error(self) -> None: ...
