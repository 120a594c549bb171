"""pi-sdk-bedrock passes the conformance kit (pi-sdk-pytest): ConverseStream, frames cut too."""

from __future__ import annotations

from _support.kit_declarations import first_party
from pi_sdk_pytest import ProviderConformance


class TestBedrockConformance(ProviderConformance):
    provider = first_party("bedrock-converse-stream")
