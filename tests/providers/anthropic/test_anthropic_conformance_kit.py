"""pi-sdk-anthropic passes the conformance kit (pi-sdk-pytest) on recorded Messages bodies."""

from __future__ import annotations

from _support.kit_declarations import first_party
from pi_sdk_pytest import ProviderConformance


class TestAnthropicConformance(ProviderConformance):
    provider = first_party("anthropic-messages")
